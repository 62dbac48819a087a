// What one trace file contributes to the step statistics, gathered on a reader thread: for events
// that name their step (args.step_num), the span of each (step, group) at once; events without one
// kept aside until every file's steps are known (their step is the one whose span contains them).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/trace_reader.hpp"

namespace ringprof::detail {

// The earliest start and the latest end of the events seen.
struct StepSpan {
    TraceNumber start, end;
    void widen(TraceNumber s, TraceNumber e) {
        if (compare(s, start) < 0) start = s;
        if (compare(end, e) < 0) end = e;
    }
};

struct StepKey {
    std::int64_t step;
    std::uint32_t group;
    bool operator==(const StepKey& o) const { return step == o.step && group == o.group; }
};
struct StepKeyHash {
    std::size_t operator()(const StepKey& k) const {
        return std::hash<std::int64_t>()(k.step) * 0x9E3779B97F4A7C15ull ^ k.group;
    }
};
using StepSpans = std::unordered_map<StepKey, StepSpan, StepKeyHash>;

// Names numbered in order of first use; a name's text stays where it is (deque), so the index
// can look names up by view without building a string per event.
class NameTable {
public:
    std::uint32_t id(std::string_view name);
    const std::deque<std::string>& names() const { return names_; }
    void clear() { names_.clear(); ids_.clear(); }

private:
    std::deque<std::string> names_;
    std::unordered_map<std::string_view, std::uint32_t> ids_;
};

struct LooseEvent {  // an event without step_num
    TraceNumber start, end;
    std::uint32_t metric, phase;
};

struct FileSteps {
    NameTable metrics, phases;  // framework_metric and process names
    StepSpans metric_spans, phase_spans;
    std::unordered_map<std::int64_t, StepSpan> node_spans;  // the file's node, per step
    std::unordered_map<std::int64_t, StepSpan> step_marks;  // Step:ModeKeys events with a step
    std::vector<LooseEvent> loose;
    void clear() { *this = FileSteps(); }
};

// smdebug's name for an event in its analysis: args.layer_name, else args.name, else the name.
// A string argument counts unescaped, any other value as its JSON text. `scratch` holds the text
// when it comes from the args.
std::string_view metric_name(const ReadEvent& e, std::string& scratch);

// smdebug's training-phase events: their metric name contains this.
inline bool is_step_mark(std::string_view metric) { return metric.find("Step:ModeKeys") != std::string_view::npos; }

class StepEventSink final : public EventSink {
public:
    StepEventSink(FileSteps& out, std::optional<std::pair<TraceNumber, TraceNumber>> range)
        : out_(out), range_(range) {}
    void on_event(const ReadEvent& e) override;

private:
    FileSteps& out_;
    std::optional<std::pair<TraceNumber, TraceNumber>> range_;
    std::string scratch_;
};

}  // namespace ringprof::detail
