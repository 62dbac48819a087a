// Flame graphs of the aggregate tree: an interactive HTML report, a static SVG and folded stacks
// (`root;a;b 1234`) for flamegraph.pl, inferno and speedscope. The same functions serve the
// built-in backends ("flame", "flame_svg", "folded") and `ringprof flame`.
//
//     ringprof::FlameProfile p = ringprof::load_flame_profile("run_timers.json");
//     std::string page = ringprof::render_html(p);
//
// Widths are total time. A parallel child (time from several threads or worker processes) can
// hold more time than its parent; when a node's children add up to more than the node, they are
// drawn scaled down together to fit inside it, and tooltips give the real numbers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/backend.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {

struct FlameThread {
    std::string label;        // shown in the view picker, e.g. "main (tid 1234)"
    TimerNode tree{"root"};   // that thread's own scopes
    std::uint64_t dropped = 0;
};

// What a report shows: the merged (process) tree plus, when known, one tree per thread.
struct FlameProfile {
    std::string title;
    TimerNode merged{"root"};
    std::vector<FlameThread> threads;
    std::uint64_t dropped = 0;  // scopes lost to full rings, over all threads
};

// Threads without any recorded scope (e.g. exited ones, whose time lives on in the merged tree)
// are left out of the per-thread views.
FlameProfile flame_profile(const Snapshot& snapshot, std::string_view title);
FlameProfile flame_profile(const TimerTree& tree, std::string_view title);

// Bad input (unreadable, not JSON, neither a timers tree nor a trace): the message names the file.
class FlameInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a saved timers JSON (either ML-Agents form, also ML-Agents' own files) or a Chrome trace /
// pythontimeline (`.json` or gzip-compressed; X and B/E events), streaming the trace.
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

// One self-contained page (no network access): an icicle chart of the merged tree and of each
// thread, with hover details, click-to-zoom, search and a table of the top self times.
std::string render_html(const FlameProfile& profile);

}  // namespace ringprof
