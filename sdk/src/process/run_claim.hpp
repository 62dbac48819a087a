// Claims a run id in an output folder for one process. Processes launched with one environment
// (ranks sharing RINGPROF_RUN_ID) would otherwise write the same file names and corrupt each
// other's outputs: the first to claim keeps the run id, the others write as "<run_id>_<pid>". A
// program that execs keeps its pid (and so its default run id): the claim file records the pid and
// the program image that made it and stays when the claim is released, and a new image that finds
// its own pid and another image there writes as "<run_id>_exec" (then "_exec_2"...), keeping the
// earlier image's files, whether or not that image had ended its session.
//
// The claim is a lock on "<output_dir>/.<run_id>.ringprof_claim" (a POSIX record lock: the
// system releases it when the process dies, it is not inherited by a forked child, and it works
// on network file systems), so a crashed run leaves no claim held. The file is opened as
// process/safe_files.hpp says (never through a link, never blocking, only a regular file with no
// other name), and written into only when this process created it or its user owns it.
#pragma once

#include <string>

#include "process/safe_files.hpp"

namespace ringprof::detail {

class RunClaim {
public:
    RunClaim() = default;
    ~RunClaim();  // releases the claim (only in the process that made it)
    RunClaim(const RunClaim&) = delete;
    RunClaim& operator=(const RunClaim&) = delete;

    // Claims `run_id` in `dir` and returns it, or, if another live process holds it, claims
    // and returns "<run_id>_<pid>" after one message on stderr. When claiming is impossible
    // (no folder, no locks), returns `run_id` unchanged: the folder's problem is reported
    // elsewhere.
    std::string claim(const std::string& dir, const std::string& run_id);
    // Claims exactly the lock file `name` in `dir`, for work only one process may do there (the
    // system-metrics sampler of a node): false only when another live process holds it; true
    // when claimed, or when claiming is impossible (then nothing stops a second claimant).
    bool claim_alone(const std::string& dir, const std::string& name);
    void release();

private:
    enum class Outcome { Claimed, Taken, HeldByEarlierImage, Unavailable };
    Outcome try_claim(const std::string& name);

    OutputFolder folder_;  // the output folder, opened once: the claim's name is never followed
    int fd_ = -1;
};

}  // namespace ringprof::detail
