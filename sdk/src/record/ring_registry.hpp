// Hands rings to threads and tells the drainer about them.
//
// A thread's first marker (the slow path) takes a ring from the pool or allocates one, and
// announces it on a lock-free queue; the drainer picks announcements up on its next pass. When
// the thread exits, its ring is marked retired; the drainer reads it to the last event and gives
// it back to the pool, so thousands of short-lived threads reuse a handful of rings.
//
// The registry outlives every session: rings a stopped session still held are parked here and
// adopted by the next one.
#pragma once

#include <concurrentqueue/concurrentqueue.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "record/thread_ring.hpp"

namespace ringprof::detail {

class RingRegistry {
public:
    static RingRegistry& instance();

    // Slow path of the calling thread's first marker: a ring that may grow to `max_capacity`
    // events, claimed and announced; null once the thread has begun exiting. Throws
    // std::bad_alloc if no ring can be had.
    ThreadRing* register_current_thread(std::uint64_t max_capacity);

    // Rings ever allocated (not taken from the pool): flat under thread churn.
    std::uint64_t rings_allocated() const { return rings_allocated_.load(std::memory_order_relaxed); }

    // The calling thread's ring, if it has registered.
    static ThreadRing* current_thread_ring();

    // Drainer side.
    bool next_announced(ThreadRing*& ring) { return announced_.try_dequeue(ring); }
    // A retired ring, fully drained: pooled (grown: freed), once no other thread holds a scope
    // of it (ThreadRing::held_elsewhere()).
    void recycle(ThreadRing* ring);
    void park(std::vector<ThreadRing*> rings);  // a stopping session's live rings
    std::vector<ThreadRing*> take_parked();
    // Whether park() has rings waiting, without the lock (a running drainer looks every pass for
    // rings a drainer the end gave up on handed back late).
    bool has_parked() const { return has_parked_.load(std::memory_order_acquire); }

    // In a forked child: the parent's threads do not exist here, so forget every ring (their
    // memory is left alone: scopes still open on the forking thread's stack may write to it).
    static void reset_after_fork();

private:
    RingRegistry() = default;
    void give_back(ThreadRing* ring);  // to the pool, or freed if it grew

    moodycamel::ConcurrentQueue<ThreadRing*> announced_;
    std::mutex mutex_;  // guards the pool and the parked list; never taken by a marker
    std::vector<ThreadRing*> pool_;
    std::vector<ThreadRing*> held_;  // retired, scopes of theirs still held elsewhere (recycle())
    std::vector<ThreadRing*> parked_;
    std::atomic<bool> has_parked_{false};  // !parked_.empty(), written under mutex_
    std::uint64_t next_serial_ = 1;
    std::atomic<std::uint64_t> rings_allocated_{0};
};

}  // namespace ringprof::detail
