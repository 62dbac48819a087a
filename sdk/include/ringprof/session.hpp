// A profiling session: owns the drainer, the aggregates and the backends. Most programs never
// name one: the first marker starts a default session configured from the environment, and
// normal process exit writes its final outputs. Tests and embedders create one explicitly.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ringprof/backend.hpp"
#include "ringprof/config.hpp"

namespace ringprof {

class SessionImpl;
struct Context;

class Session {
public:
    explicit Session(Config config = Config::from_environment());
    ~Session();  // drains every ring, writes the final snapshot, closes the backends
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Drains every ring now and hands a snapshot to the backends (their files are rewritten).
    void flush();
    // Drains every ring now and returns the aggregates without writing anything.
    Snapshot snapshot();
    // Drains every ring now and returns the flat statistics of the running thread `tid` (an OS
    // thread id) alone: what it recorded since the session began or its last reset.
    std::vector<FunctionStats> thread_stats(std::uint32_t tid);
    // Outputs beyond the built-in ones; call before the first event for a complete picture.
    void add_backend(std::unique_ptr<Backend> backend);

    // Adds a key/value pair to the root "metadata" of the timers file.
    void add_metadata(std::string_view key, std::string_view value);

    // The aggregates since the last take, then a reset of this session's timers and gauges
    // (a worker process's periodic send; see worker_tree.hpp).
    TimerTree take_tree();
    // Merges `tree` under `graft_path` below the scope `context` was captured in, as parallel.
    void graft(const Context& context, std::string_view graft_path, const TimerTree& tree);

    const Config& config() const;
    const RunInfo& run_info() const;

    // The session currently recording in this process, or null.
    static Session* current();

private:
    std::unique_ptr<SessionImpl> impl_;
};

}  // namespace ringprof
