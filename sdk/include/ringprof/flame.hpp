// Flame graphs of the aggregate tree: an interactive HTML report, a static SVG and folded stacks
// (`root;a;b 1234`) for flamegraph.pl, inferno and speedscope. The same functions serve the
// built-in backends ("flame", "flame_svg", "folded") and `ringprof flame`.
//
//     ringprof::FlameProfile p = ringprof::load_flame_profile("run_timers.json");
//     std::string page = ringprof::render_html(p);
//
// Widths are total time. A parallel child (time from several threads or worker processes) can
// hold more time than its parent; when a node's children add up to more than the node, they are
// drawn scaled down together to fit inside it, and tooltips give the real numbers. The HTML page
// can also draw thread-time widths (nothing scaled) and one column per thread; its percentages
// are of the view's thread time (time inside scopes summed over threads), so they never pass 100.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/backend.hpp"
#include "ringprof/step_statistics.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {

struct FlameThread {
    std::string label;       // as the timelines name the thread: "main", "thread <tid>" or its set name
    TimerNode tree{"root"};  // that thread's own scopes
    std::uint64_t dropped = 0;
    std::string detail;  // shown beside the label, e.g. "tid 1234, exited"
};

// The time-ordered view: one lane per thread, spans nested by depth.
struct FlameSpan {
    std::int64_t start_ns = 0;  // from the timeline's start
    std::int64_t dur_ns = 0;
    std::uint32_t name = 0;   // index into FlameTimeline::names
    std::uint32_t depth = 0;  // 0: outermost on its lane
};

struct FlameLane {
    std::string label;
    std::vector<FlameSpan> spans;  // by start
};

struct FlameStep {
    std::int64_t step = 0;
    std::int64_t start_ns = 0;  // the first span of the step began, the last one ended
    std::int64_t end_ns = 0;
};

// A page's timeline holds at most this many spans: the longest ones, as a span shorter than a
// pixel at the full view cannot be seen anyway. The demo's 53,000 spans of 20 us and longer
// make a 2.4 MB page that draws in well under 100 ms (FlameBrowser.TimelineOfTheDemoSize...).
inline constexpr std::size_t kFlameTimelineMaxSpans = 60000;

// A system metric over the timeline (a folder with system/ files): one core's CPUUtilization or
// one GPU's GPUUtilization, drawn as a heatmap lane under the threads.
struct FlameUtilization {
    std::string label;                // "algo-1 cpu0", "algo-1 gpu0"
    std::vector<std::int64_t> t_ns;   // sample times, from the timeline's start
    std::vector<double> value;        // percent
};

// A profiler rule's finding (ringprof/system_rules.hpp) on the timeline's clock.
struct FlameFinding {
    std::string rule, node, device, steps, what;  // steps: "12..40", empty when none are known
    std::int64_t start_ns = 0, end_ns = 0;        // from the timeline's start
};

struct FlameTimeline {
    std::vector<std::string> names;
    std::vector<FlameLane> lanes;  // empty: the input had no timeline
    std::vector<FlameStep> steps;
    std::int64_t duration_ns = 0;
    std::uint64_t spans_seen = 0;  // spans the input had; at most kFlameTimelineMaxSpans are kept
    std::string note;              // what is shown and what was left out, for the page
    double origin_us = 0;          // the start, absolute microseconds (a folder's timelines are absolute)
    std::vector<FlameUtilization> utilization;  // CPUs, then GPUs, by node
    std::vector<FlameFinding> findings;         // of the rules that triggered (`ringprof rules`)
};

// What a report shows: the merged (process) tree plus, when known, one tree per thread, and
// the spans over time when the input had them.
struct FlameProfile {
    std::string title;
    TimerNode merged{"root"};
    std::vector<FlameThread> threads;
    std::uint64_t dropped = 0;  // scopes lost to full rings, over all threads
    FlameTimeline timeline;
    // Per step, each node's (host and process) time in it and the slowest node, as `ringprof steps
    // --by node` counts them; the page draws them as its steps view. Empty: no view.
    std::vector<StepStraggler> node_steps;
    std::vector<std::string> skipped_inputs;  // "<file>: <why>" for inputs of a folder left out
    std::uint64_t events_dropped = 0;         // malformed events left out of the files drawn
    std::vector<std::string> notes;           // "<file>: <what>" for dropped or unpaired events
};

// Every thread that recorded a scope gets a view, exited ones included (each tree's total is set
// to the time in that thread's outermost scopes). Threads without any scope are left out.
FlameProfile flame_profile(const Snapshot& snapshot, std::string_view title);
FlameProfile flame_profile(const TimerTree& tree, std::string_view title);

// Bad input (unreadable, not JSON, neither a timers tree nor a trace): the message names the file.
class FlameInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a saved timers JSON (either ML-Agents form, also ML-Agents' own files) or a Chrome trace /
// pythontimeline (`.json` or gzip-compressed; X and B/E events), streaming the trace; or a folder
// of timelines as `ringprof merge` reads it (smdebug's layout or a ringprof output folder), with
// the steps of its nodes.
FlameProfile load_flame_profile(const std::string& path);

// One line per stack with time of its own: frames joined by ';' from "root" down, then a space
// and the stack's self time in whole microseconds. Self time is computed on microsecond-rounded
// totals, so the lines under any non-parallel node add up to its rounded total. ';' inside a name
// becomes ':' and line breaks become spaces, as the consumers split on them.
std::string render_folded(const TimerNode& root);

struct SvgOptions {
    std::string title = "Flame graph";
    int width = 1200;           // pixels
    int frame_height = 16;      // pixels per stack level
    double min_frame_px = 0.1;  // narrower frames (and what they contain) are not drawn
};

// A flame graph (root at the bottom, as flamegraph.pl draws it) with a tooltip per frame.
std::string render_svg(const TimerNode& root, const SvgOptions& options = {});

// One self-contained page (no network access): an icicle chart of the merged tree, of the threads
// side by side and of each thread, with hover details, click-to-zoom, search and a table of the
// top self times; below it, when the profile has spans, a zoomable timeline with steps marked.
std::string render_html(const FlameProfile& profile);

}  // namespace ringprof
