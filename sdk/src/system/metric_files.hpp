// Where system metrics go, in SageMaker's layout, which smdebug's readers take as it is:
//   <output dir>/system/incremental/<YYYYMMDDHH>/<epoch seconds of the minute>.<node>.json
// one file per node and minute (hour folder and minute in UTC), one JSON object per line.
//
// Each sample is appended to its minute's file with one write of whole lines, so a reader sees
// whole lines and at most a partial last one while a write is under way (or after a crash in
// one); smdebug skips a corrupt last line of a system file, and so does ringprof. Files are
// created by this process only (process/safe_files.hpp), never opened if already there: a
// leftover of an earlier run with the same name makes the new file take another name, which
// smdebug does not read, and that is said once.
#pragma once

#include <string>

#include "process/safe_files.hpp"
#include "ringprof/output_files.hpp"
#include "system/system_metric.hpp"

namespace ringprof::detail {

// "algo-<rank + 1>": the node names smdebug's file-name pattern accepts.
std::string system_node_name(unsigned node_rank);

// The sample's rows as JSON lines, each ending in '\n'.
std::string system_metric_lines(const SystemSample& sample, const std::string& node);

// "YYYYMMDDHH" of `epoch_seconds`, in UTC.
std::string hour_folder_name(long long epoch_seconds);
// "<minute>.<node>.json", the minute being `epoch_seconds` rounded down to a whole minute.
std::string minute_file_name(long long epoch_seconds, const std::string& node);

class SystemMetricFiles {
public:
    SystemMetricFiles(std::string output_dir, std::string node);

    // Appends the sample to its minute's file, starting a new file at each minute. Throws
    // OutputError (the sample is lost; the next one tries again).
    void write(const SystemSample& sample);
    // Closes the current file (throws OutputError if the system reports a failed write).
    void close();

    // The current minute file's path, "" before the first write.
    const std::string& current_path() const { return file_.path(); }

private:
    void open_minute(long long minute);

    std::string output_dir_;
    std::string node_;
    OutputFolder incremental_;
    long long minute_ = -1;
    OutputFile file_;
};

}  // namespace ringprof::detail
