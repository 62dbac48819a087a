// What one trace file contributes to the step statistics, gathered on a reader thread: for events
// that name their step (args.step_num), the span of each (step, group) at once; events without one
// kept aside until every file's steps are known (their step is the one whose span contains them).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
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
    NameTable() = default;
    NameTable(NameTable&&) = default;  // a moved deque keeps its elements where they are
    NameTable& operator=(NameTable&&) = default;
    NameTable(const NameTable&) = delete;  // a copy's index would point into the original
    NameTable& operator=(const NameTable&) = delete;
    std::uint32_t id(std::string_view name);
    const std::deque<std::string>& names() const { return names_; }
    void clear() {
        names_.clear();
        ids_.clear();
    }

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
    std::vector<LooseEvent> loose;                          // first reading: events without step_num, kept
    std::uint64_t outside = 0;                              // second reading: events in no step
    std::set<std::uint32_t> outside_metrics;
    void clear() { *this = FileSteps(); }
};

// How many events without step_num the readers of a first reading may keep, together. Past it
// they keep no more, and the files are read a second time with the steps known.
class LooseBudget {
public:
    explicit LooseBudget(std::size_t events) : left_(static_cast<std::int64_t>(events)) {}
    bool take() {
        if (left_.fetch_sub(1, std::memory_order_relaxed) > 0) return true;
        over_.store(true, std::memory_order_relaxed);
        return false;
    }
    bool exceeded() const { return over_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::int64_t> left_;
    std::atomic<bool> over_{false};
};

class StepFinder;

// smdebug's name for an event in its analysis: args.layer_name, else args.name, else the name.
// A string argument counts unescaped, any other value as its JSON text. `scratch` holds the text
// when it comes from the args.
std::string_view metric_name(const ReadEvent& e, std::string& scratch);

// smdebug's training-phase events: their metric name contains this.
inline bool is_step_mark(std::string_view metric) { return metric.find("Step:ModeKeys") != std::string_view::npos; }

// A first reading keeps events without step_num (within `budget`); a second one, given the steps
// of the first, puts them in their step at once.
class StepEventSink final : public EventSink {
public:
    StepEventSink(FileSteps& out, std::optional<std::pair<TraceNumber, TraceNumber>> range, LooseBudget* budget,
                  const StepFinder* finder)
        : out_(out), range_(range), budget_(budget), finder_(finder) {}
    void on_event(const ReadEvent& e) override;

private:
    void add_to_step(std::int64_t step, std::uint32_t metric, std::uint32_t phase, TraceNumber start, TraceNumber end);

    FileSteps& out_;
    std::optional<std::pair<TraceNumber, TraceNumber>> range_;
    LooseBudget* budget_;
    const StepFinder* finder_;
    std::string scratch_;
};

}  // namespace ringprof::detail
