// How the end of a session waits for ringprof's threads (the drainer's final snapshot, the timeline
// writer's last spans): as long as they make progress, and no longer than a bound after they stop
// moving. A fixed total would cut a slow but working writer short (a large trace compressing on an
// overloaded machine lost its timers that way); no bound at all would let a backend blocked on a
// lock, a full pipe or a hung mount hold the process's exit for good.
//
// Progress is a counter the threads advance as they work (a drainer pass, a command run, a writer
// item taken, a batch of spans delivered); one step between two advances is a single backend call,
// so the bound must exceed the longest single call expected on an overloaded machine
// (kMaxExitStill, session_impl.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace ringprof::detail {

struct EndPatience {
    std::chrono::milliseconds still;          // give up after this long without progress
    std::function<std::uint64_t()> progress;  // moves while the awaited threads work; null: wait forever
    // Waits on `cv` until `done()`; false if `progress` did not move for `still`.
    template <class Done>
    bool wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Done done) const {
        using namespace std::chrono;
        if (!progress) {
            cv.wait(lock, done);
            return true;
        }
        const auto slice = std::clamp(duration_cast<milliseconds>(still / 10), milliseconds(1), milliseconds(100));
        std::uint64_t seen = progress();
        auto last_move = steady_clock::now();
        for (;;) {
            if (cv.wait_for(lock, slice, done)) return true;
            const std::uint64_t now_seen = progress();
            const auto now = steady_clock::now();
            if (now_seen != seen) {
                seen = now_seen;
                last_move = now;
            } else if (now - last_move >= still) {
                return done();
            }
        }
    }
};

// Waits forever (user calls that block as long as the drainer does).
inline EndPatience unbounded_patience() { return EndPatience{std::chrono::milliseconds(0), nullptr}; }

}  // namespace ringprof::detail
