// Threads that decode shares of one drainer pass beside the drainer thread.
//
// Problem: one drainer turns about 200 M events a second into aggregates; eight threads recording
// back to back write that much, and beyond it every thread waits on the one drainer.
// Mechanism: rings are per thread and so is every decode's state (ThreadTrack), so a pass can be
// cut into shares of whole tracks, in track order, decoded at once on several threads and joined
// before anything reads across tracks (ends made elsewhere, retirements, snapshots, the timeline's
// records, concatenated in share order). The drainer thread takes shares too; a share is claimed
// by whichever thread comes first, so a helper that could not be started or is slow to wake
// costs nothing but its part of the parallelism.
// Bound: a run() waits for every share it handed out; helpers sleep on a condition variable
// between passes (no polling) and are started only when a pass first asks for them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "process/fork_gate.hpp"

namespace ringprof::detail {

class DecodePool {
public:
    DecodePool() = default;
    ~DecodePool() { stop(); }
    DecodePool(const DecodePool&) = delete;
    DecodePool& operator=(const DecodePool&) = delete;

    // Runs share(k) once for each k in [0, shares), on the calling thread and up to `shares - 1`
    // helpers, and returns when all have returned. `share` must not throw.
    void run(std::size_t shares, const std::function<void(std::size_t)>& share);
    // Ends and joins the helpers (a later run() starts them again).
    void stop();
    // Helpers running now (for tests and benchmarks).
    std::size_t helpers() const;

private:
    void start_helpers(std::size_t wanted);
    void helper_loop();
    // Claims and runs shares of the current job until none is left.
    void take_shares();

    mutable std::mutex mutex_;
    std::condition_variable work_;
    std::condition_variable done_;
    std::vector<GatedThread> threads_;
    const std::function<void(std::size_t)>* job_ = nullptr;
    std::size_t shares_ = 0;
    std::atomic<std::size_t> next_share_{0};
    std::size_t running_ = 0;       // threads inside take_shares() for the current job
    std::uint64_t generation_ = 0;  // of the current job: a helper takes part once per job
    bool stopping_ = false;
};

}  // namespace ringprof::detail
