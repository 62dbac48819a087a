// Finding trace files under <root>/framework/ and learning from their paths what smdebug learns:
// the kind (which decides the reading order), the node, the file's end time (which decides whether
// a time range needs the file) and, for TensorFlow traces, the time base from the .metadata marker.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_number.hpp"

namespace ringprof::detail {

// In smdebug's reading order: events of equal start time keep this order in the output.
enum class SourceKind : int { pythontimeline = 0, model_timeline, trace_gz, horovod, smdataparallel };

struct TraceFile {
    std::string path;
    SourceKind kind = SourceKind::pythontimeline;
    std::int64_t timestamp = 0;  // from the name (or the marker): end of the file's last event, µs
    std::string node_id;
    bool tensorflow = false;  // TF profiler trace: ts relative to the marker's start time
    bool has_base = false;    // time base known from outside the file
    TraceNumber base;
    std::uint64_t size = 0;
    bool always_read = false;  // no end time in the name (ringprof's own trace): every range reads it
};

struct FileProblem {
    std::string path;
    std::string reason;
};

struct Discovery {
    std::vector<TraceFile> files;  // sorted in reading order
    std::vector<FileProblem> problems;
    // ringprof traces left out because the same run's pythontimeline files are merged (reason says so).
    std::vector<FileProblem> duplicates;
};

const std::vector<std::string>& known_suffixes();

// Walks <root>/framework, plus ringprof's own Chrome traces (<root>/<run_id>_trace.json.gz, beside
// framework/ in a ringprof output folder). One run writes both forms; a ringprof trace whose
// process (pid and host, from its first events) also wrote selected pythontimeline files is left
// out, so each span is merged once. Files that pass the filter but cannot be used (unknown
// suffix, no timestamp in the name, no marker) and folders that cannot be listed become problems.
// Throws std::runtime_error when <root> holds neither a readable framework/ nor ringprof traces.
Discovery discover_trace_files(const std::string& root, const std::vector<std::string>& suffix_filter);

// smdebug shows "<pid>-algo-N" nodes as "algo-N-<pid>" so hosts sort together.
std::string display_node_id(std::string_view node_id);

// The files a query of [start, end] µs reads, as smdebug picks them by name: end times within
// three minutes of the range, plus the first file ending after that (its events may reach back).
std::vector<TraceFile> select_for_range(const std::vector<TraceFile>& files, TraceNumber start, TraceNumber end);

}  // namespace ringprof::detail
