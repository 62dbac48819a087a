// How long training steps take, per group, across the processes and hosts of a job: SageMaker
// Debugger's step statistics (PandasFrameAnalysis.get_step_statistics) over the inputs
// `ringprof merge` reads, plus which node holds each step back. See docs/steps.md.
//
//     ringprof::StepRequest req;
//     ringprof::StepAnalysis a = ringprof::analyze_steps("/data/run1", req);
//     std::cout << ringprof::render_step_csv(a, ringprof::StepGrouping::process);
//
// Each event belongs to its step (args.step_num, else the step whose time span strictly contains
// it); per (step, group) the span from the earliest start to the latest end is the group's time in
// that step; per group, the mean, min, max and 50/95/99th percentiles (linear interpolation) of
// those spans, in microseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ringprof/merged_timeline.hpp"

namespace ringprof {

enum class StepGrouping {
    training_phase,    // the Step:ModeKeys.* events, by name
    process,           // the process name of the event's pid (its phase in the merged timeline)
    framework_metric,  // args.layer_name, else args.name, else the event's name
    node,              // the host and process that wrote the event (the merge's <node> of a track)
};

// "training_phase", "process", "framework_metric", "node"; nullopt for another name.
std::optional<StepGrouping> step_grouping_named(std::string_view name);
std::string_view step_grouping_name(StepGrouping by);

struct StepRequest {
    std::vector<std::string> suffixes;  // as merge's --suffix; empty: every known kind
    // As merge's --start/--end: events overlapping [first, second] µs, or steps [first, second).
    std::optional<std::pair<std::int64_t, std::int64_t>> range;
    MergeUnit unit = MergeUnit::time;
    unsigned reader_threads = 0;  // 0: one per core, at most 8
    double outlier_k = 3.0;       // a step is an outlier above median + k * MAD of the step times
    // Memory for events without step_num, kept until every file's steps are known (under 50 bytes
    // each). Past it the files are read a second time instead, with the steps known; same answer.
    std::size_t memory_budget = std::size_t{256} << 20;
};

struct StepGroupStats {
    std::string group;
    std::uint64_t steps = 0;  // steps the group has events in
    double mean_us = 0, min_us = 0, max_us = 0, p50_us = 0, p95_us = 0, p99_us = 0;
};

// One node's time in one step.
struct StepNodeTime {
    std::string node;
    double us = 0;                              // the span of the node's events in the step
    std::optional<double> median_of_others_us;  // of the other nodes in the step; nullopt alone
};

// One step across the nodes: who took longest, against the others.
struct StepStraggler {
    std::int64_t step = 0;
    double duration_us = 0;    // the step's span: its earliest event's start to its latest end
    std::string slowest_node;  // the node whose span in the step is longest (ties: first by name)
    double slowest_us = 0;
    std::optional<double> median_of_others_us;  // nullopt when the step ran on one node only
    std::uint64_t nodes = 0;                    // nodes with events in the step
    bool outlier = false;                       // duration_us > median + k * MAD over all steps
    std::vector<StepNodeTime> by_node;          // every node with events in the step, sorted by name
};

struct StepAnalysis {
    std::vector<StepGroupStats> training_phase, process, framework_metric, node;  // rows sorted by group
    const std::vector<StepGroupStats>& by(StepGrouping g) const;

    std::vector<StepStraggler> steps;  // by step number
    double outlier_k = 3.0;
    double step_median_us = 0, step_mad_us = 0;  // of the step durations: the outlier rule's terms

    // Events in no step (no step_num, and no step's span strictly contains them): left out of
    // every statistic, where smdebug stops with an IndexError.
    std::uint64_t events_outside_steps = 0;
    std::vector<std::string> names_outside_steps;  // their distinct names, sorted

    std::uint64_t events_read = 0;
    std::uint64_t files_read = 0;
    unsigned readings = 1;                  // 2 when the events without step_num were past the memory budget
    std::int64_t start_us = 0, end_us = 0;  // the range used, when one was asked for
    std::vector<SkippedInput> skipped;      // inputs left out whole, as merge reports them
    std::uint64_t events_dropped = 0;       // malformed events left out of files that were read
    std::vector<std::string> notes;         // "<file>: <what>"
    bool complete() const noexcept { return skipped.empty() && events_dropped == 0; }
};

// Reads the inputs of `ringprof merge` under `path` (the same files, reader and range rules).
// Throws MergeError for a request that cannot be served, as MergedTimeline does; bad input files
// never throw: they are listed in `skipped`.
StepAnalysis analyze_steps(const std::string& path, const StepRequest& request = {});

// smdebug's CSV: "<by>,duration_mean_us,duration_min_us,duration_max_us,duration_p50_us,
// duration_p95_us,duration_p99_us", one row per group, numbers as Python prints floats.
std::string render_step_csv(const StepAnalysis& a, StepGrouping by);
// The groups as an aligned table, then the stragglers per step and the outlier rule.
std::string render_step_table(const StepAnalysis& a, StepGrouping by);
// {"by", "groups": [...], "steps": [...], "outliers": {...}, "outside_steps": {...}}
std::string render_step_json(const StepAnalysis& a, StepGrouping by);

}  // namespace ringprof
