// Merging timelines from many processes and hosts into one Chrome/Perfetto trace, compatible with
// SageMaker Debugger's MergedTimeline: the same inputs (pythontimeline.json, model_timeline.json,
// horovod/smdataparallel timelines, TensorFlow's and ringprof's trace.json.gz under
// <path>/framework/, and system metrics under <path>/system/), the same events in the same order,
// the same pids and metadata events.
// See docs/merge.md for where and why the result deliberately differs from smdebug's.
//
//     ringprof::MergedTimeline merger("/data/run1");
//     ringprof::MergeResult r = merger.merge_timeline(t0_us, t1_us);      // or MergeUnit::step
//     for (const auto& s : r.skipped) std::cerr << s.path << ": " << s.reason << "\n";
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringprof {

enum class MergeUnit {
    time,  // start and end are microseconds since the Unix epoch
    step,  // start and end are training steps (args.step_num in pythontimeline files): [start, end)
};

// The request itself cannot be served: end before start, a step that no file mentions, no
// <path>/framework folder, an output folder that cannot be written.
class MergeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SkippedInput {
    std::string path;    // file or folder
    std::string reason;  // e.g. "truncated gzip stream (compressed data ends early)"
};

struct MergeResult {
    // The merged file (written even when no event matched: "[]"); empty, and nothing written,
    // when every input was skipped.
    std::string output_path;
    std::uint64_t events_written = 0;    // X events
    std::uint64_t system_events = 0;     // counters and bottleneck instants from <path>/system/
    std::uint64_t metadata_written = 0;  // process_name, process_sort_index, thread_name events
    std::uint64_t files_merged = 0;
    std::uint64_t bytes_read = 0;  // input bytes, as stored on disk
    std::int64_t start_us = 0;     // the time range used (resolved from steps for MergeUnit::step)
    std::int64_t end_us = 0;
    std::vector<SkippedInput> skipped;  // inputs left out whole
    std::uint64_t events_dropped = 0;   // malformed events left out of files that were merged
    std::vector<std::string> notes;     // "<file>: <what>" for dropped or unpaired events

    // True when every input that passed the suffix filter was merged whole.
    bool complete() const noexcept { return skipped.empty() && events_dropped == 0; }
};

namespace detail {
// A merge's settings besides the range: MergedTimeline's constructor arguments and setters.
struct MergeSettings {
    std::string path;
    std::vector<std::string> suffixes;
    std::string output_dir;
    std::size_t memory_budget = std::size_t{256} << 20;
    std::string temp_dir;
    std::string node_id;
    unsigned reader_threads = 0;
    bool system_metrics = true;
};
}  // namespace detail

class MergedTimeline {
public:
    // `path` holds framework/; an empty suffix filter means every known kind; the output goes to
    // `output_dir`, or to `path` when empty.
    explicit MergedTimeline(std::string path, std::vector<std::string> suffix_filter = {}, std::string output_dir = {});

    // Events overlapping [start, end] (time), or from the start of step `start` to just before the
    // start of step `end` (step). Throws MergeError for a request that cannot be served; bad input
    // files never throw: they are listed in MergeResult::skipped.
    MergeResult merge_timeline(std::int64_t start, std::int64_t end, MergeUnit unit = MergeUnit::time);
    // Every event of every file.
    MergeResult merge_all();

    // Memory for buffered events before they spill to temporary files (default 256 MiB).
    void set_memory_budget(std::size_t bytes) { settings_.memory_budget = bytes; }
    // Folder for spill files (default: the system's temporary folder).
    void set_temp_dir(std::string dir) { settings_.temp_dir = std::move(dir); }
    // The <node> of the output name <end_us>_<node>_merged_timeline.json (default: "<pid>-<host>").
    void set_node_id(std::string node) { settings_.node_id = std::move(node); }
    // Threads that read input files (default 0: one per core, at most 8). The output is the same
    // for every count.
    void set_reader_threads(unsigned n) { settings_.reader_threads = n; }
    // Whether <path>/system/ metrics are merged as smdebug's default filter does: counters, and
    // instants where a GPU is below 85 % (default true; docs/system_metrics.md).
    void set_system_metrics(bool on) { settings_.system_metrics = on; }

    static const std::vector<std::string>& known_suffixes();

private:
    detail::MergeSettings settings_;
};

}  // namespace ringprof
