// What `ringprof merge` and `ringprof steps` share before their events part ways: which time range
// a request means (a step range is resolved to times from the pythontimeline files, as smdebug
// does), how one selected file is opened and read, and how many threads read.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "merge/trace_files.hpp"
#include "ringprof/merged_timeline.hpp"
#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::detail {

using TimeRange = std::pair<TraceNumber, TraceNumber>;

// Throws MergeError for a request no input can serve: an end before the start. Checked before
// anything is read, so that a bad command line is told as such.
void check_range_request(const std::optional<std::pair<std::int64_t, std::int64_t>>& request, MergeUnit unit);

// The time range [first, second] µs a request stands for; nullopt for everything. Throws
// MergeError when the request cannot be served (an end before the start, a step no file
// mentions). Files that cannot be read while looking for steps are added to `skipped`.
std::optional<TimeRange> resolve_range(const std::string& root,
                                       const std::optional<std::pair<std::int64_t, std::int64_t>>& request,
                                       MergeUnit unit, std::map<std::string, std::string>& skipped);

std::unique_ptr<ByteSource> open_trace(const TraceFile& f);

// Reads one file into `sink`; returns the reason when the file must be left out whole (the caller
// forgets what the sink was given). `restart` is called before the file is read a second time
// (its time base turned up only after its events).
std::optional<std::string> read_trace_file(const TraceFile& f, EventSink& sink, const std::function<void()>& restart,
                                           ReadOutcome& outcome);

// About how many bytes of JSON a file holds (a gzip byte counted as 10).
std::uint64_t text_bytes(const TraceFile& f);

// The order to start reading files in: the most work first, so that the largest is not left to
// one thread at the end. Answers must not depend on it.
std::vector<std::size_t> starting_order(const std::vector<TraceFile>& files);

// One reader per core, at most 8 (see merged_timeline.cpp for the measurements).
unsigned default_reader_threads();

}  // namespace ringprof::detail
