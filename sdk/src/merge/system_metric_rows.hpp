// The system-metrics rows a merge reads, found and read as smdebug's SystemMetricsReader does
// (what MergedTimeline and PandasFrame see):
// - files: under <path>/system/, in any subfolder, named "<10 digits>.algo-<n>.json" (smdebug's
//   pattern, matched from the start of the name only); read in the order of the name's
//   timestamp, then of the path;
// - with a time range, only files whose timestamp is within 3 minutes of it (smdebug's
//   TIME_BUFFER_DEFAULT, with its bisect: the file just before the range's buffered start too),
//   and only rows whose Timestamp (seconds) lies in [start, end] (microseconds), compared in
//   nanoseconds computed as Python computes them;
// - a row is Type, Name, Dimension, Value (a number), NodeId and Timestamp (a number); rows
//   repeated whole are kept once (PandasFrame's duplicated() == False).
//
// Bad input: a file's last line that is not such a row is skipped silently, as smdebug does (a
// writer may be in the middle of it); any other bad line is left out and named, with its file
// and line number, in `notes` (smdebug stops the whole merge there with a ValueError). A file
// that cannot be read is named in `notes` too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_number.hpp"

namespace ringprof::detail {

struct SystemRow {
    double timestamp = 0;    // seconds since the epoch, as written
    std::int64_t ts_us = 0;  // int(timestamp * 1000000), PandasFrame's timestamp_us
    double value = 0;
    std::string type, name, dimension, node;
};

// The system files under `path`/system in smdebug's reading order; with `range_us`, only those
// its reader opens for that range (microseconds, as the merge's range is).
std::vector<std::string> find_system_files(const std::string& path,
                                           const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us);

// The rows of `text` (one file's content) appended to `rows`; bad lines as said above.
void read_system_rows(const std::string& file, const std::string& text, std::vector<SystemRow>& rows,
                      std::vector<std::string>& notes);

// Every row of the files for the range, in range, each once, in reading order (PandasFrame's).
std::vector<SystemRow> read_system_rows_in_order(const std::string& path,
                                                 const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us,
                                                 std::vector<std::string>& notes);

// The same, sorted by ts_us as pandas sorts them
// (numpy_argsort.hpp: rows of one time not in reading order).
std::vector<SystemRow> read_system_metrics(const std::string& path,
                                           const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us,
                                           std::vector<std::string>& notes);

}  // namespace ringprof::detail
