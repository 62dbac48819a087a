// Says each output problem once. Every output of a session lives in one folder, so one cause
// (an unwritable folder, a full disk) would otherwise be reported by every backend and every
// snapshot: a problem is reported once per folder and reason, and any new reason once more. A
// refused name (OutputRefused: a link or a FIFO at a name ringprof writes) is reported once per
// name.
#pragma once

#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ringprof::detail {

class OutputProblems {
public:
    explicit OutputProblems(std::string output_dir) : output_dir_(std::move(output_dir)) {}

    // Reports `e` (from `who`, at `stage`: "write", "start", ...) on stderr unless the same
    // problem was reported already; returns whether it printed. Any thread.
    bool report(const std::string& who, const char* stage, const std::exception& e);

private:
    // The output folder a path belongs to: the session's folder for anything under it.
    std::string folder_for(const std::string& folder) const;

    const std::string output_dir_;
    std::mutex mutex_;
    std::vector<std::string> seen_;
};

}  // namespace ringprof::detail
