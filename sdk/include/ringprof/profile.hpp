// accelerate.profiler's Profile (itself cProfile's, plus argument signatures) over a ringprof
// session:
//
//     ringprof::Profile p;                 // or Profile({.signatures = false}) in C++20
//     p.enable();
//     dot(a, b);                           // PROF_FUNCTION_SIG(a, b) inside
//     p.disable();
//     p.print_stats(std::cout);            // the cProfile table, one row per signature
//
// A Profile uses the session already recording in the process, or starts one (initially
// disabled) and stops it when destroyed. A Profile on a session it did not start may outlive it
// (process exit): its calls then return nothing. enable()/disable() switch recording for the
// whole process, as ringprof::enable()/disable() do. See docs/stats.md.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/config.hpp"
#include "ringprof/stats.hpp"

namespace ringprof {

class Session;

struct ProfileOptions {
    // accelerate's custom_timer and time_unit: a tick source and the seconds of one tick. Only
    // honoured when this Profile starts the session (a running session keeps its clock).
    std::uint64_t (*custom_timer)() = nullptr;
    double time_unit = 1e-9;
    // Sub-entries per callee in getstats() (accelerate's `subcalls`).
    bool subcalls = true;
    // One row per distinct argument signature; off: one row per function.
    bool signatures = true;
    // Settings of the session this Profile starts when none is running (default: from the
    // environment). Its start_enabled and clock fields are overridden by the options above.
    std::optional<Config> session;
};

// accelerate's profiler_entry `code`: which row.
struct ProfilerCode {
    std::string file;
    std::uint32_t line = 0;
    std::string name;
    std::string signature;  // "(a:...)" or empty
};

// accelerate's profiler_subentry: calls from an entry to one callee.
struct ProfilerSubEntry {
    ProfilerCode code;
    std::uint64_t callcount = 0;
    std::uint64_t reccallcount = 0;
    double totaltime = 0.0;   // seconds, sub-calls included
    double inlinetime = 0.0;  // seconds, sub-calls excluded
};

// accelerate's profiler_entry.
struct ProfilerEntry {
    ProfilerCode code;
    std::uint64_t callcount = 0;
    std::uint64_t reccallcount = 0;  // calls made while the same row was already on the stack
    double totaltime = 0.0;
    double inlinetime = 0.0;
    std::optional<std::vector<ProfilerSubEntry>> calls;  // empty optional with subcalls off
};

namespace detail {
// The arithmetic of recording windows over a session's rows (every figure is a sum over calls):
// what was collected between two snapshots (`now` minus `base`; rows left without calls are
// dropped), and the sum of two sets of rows (rows and callees matched by file, line, name and
// signature).
std::vector<FunctionStats> stats_difference(const std::vector<FunctionStats>& now,
                                            const std::vector<FunctionStats>& base);
std::vector<FunctionStats> stats_sum(std::vector<FunctionStats> into, const std::vector<FunctionStats>& more);
// The rows of the running thread `tid` alone in the session recording now (Session::thread_stats),
// or none when no session is recording or it is ending.
std::vector<FunctionStats> running_thread_stats(std::uint32_t tid);
}  // namespace detail

class Profile {
public:
    explicit Profile(ProfileOptions options = {});
    ~Profile();
    Profile(const Profile&) = delete;
    Profile& operator=(const Profile&) = delete;

    void enable();
    void enable(bool subcalls);
    void disable();
    // Forgets everything collected so far (a call in progress is counted when it ends).
    void clear();

    std::vector<ProfilerEntry> getstats();
    // The rows of the table, collected since construction or the last clear().
    std::vector<FunctionStats> stats();

    void print_stats(std::ostream& out, StatsSort sort = StatsSort::Stdname);
    // `sort` by pstats name ("cumulative", "calls", ...); throws std::invalid_argument if unknown.
    void print_stats(std::ostream& out, std::string_view sort);
    void print_stats(StatsSort sort = StatsSort::Stdname);  // to std::cout

private:
    ProfileOptions options_;
    std::unique_ptr<Session> owned_;  // the session this Profile started, if it did
    // Otherwise the session that was running when it was made: compared with the current one
    // at each call, never dereferenced (it may have ended since).
    const Session* borrowed_ = nullptr;
    std::vector<FunctionStats> baseline_;
};

}  // namespace ringprof
