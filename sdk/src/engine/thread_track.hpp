// What the drainer keeps per recording thread: the ring it reads and the decoding state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/call_tree.hpp"
#include "engine/thread_ring.hpp"

namespace ringprof::detail {

struct OpenScope {
    std::uint32_t node;
    std::uint64_t begin_ticks;
};

// A step (PROF_STEP) open on this thread; steps may nest (GLOBAL around TRAIN).
struct OpenStep {
    std::int64_t step;
    std::uint32_t mode;
    std::uint32_t depth;
    std::uint64_t begin_ticks;
};

struct ThreadTrack {
    // `dropped_before`: drops the ring counted before this session (a ring parked by an earlier
    // session); a newly announced ring starts from zero.
    ThreadTrack(ThreadRing* r, std::uint64_t drops_already_counted, std::uint64_t waits_already_counted = 0,
                std::uint64_t wait_ticks_already_counted = 0)
        : ring(r), tid(r->tid()), serial(r->serial()), dropped_before(drops_already_counted),
          waits_before(waits_already_counted), wait_ticks_before(wait_ticks_already_counted) {
        stack.push_back(OpenScope{CallTree::kRoot, 0});
    }

    ThreadRing* ring;
    std::uint32_t tid;
    std::uint64_t serial;
    std::uint64_t dropped_before;  // the ring's drop count when this session took it over
    std::uint64_t waits_before;    // likewise for waits for room, and their ticks
    std::uint64_t wait_ticks_before;
    CallTree tree;
    std::vector<OpenScope> stack;  // stack[0] is the root and is never popped
    std::int64_t step = -1;        // the step this thread is inside, -1 if none
    std::uint32_t step_mode = 0;
    std::vector<OpenStep> steps;   // innermost last
    std::uint32_t blocked_passes = 0;  // passes this ring has waited for a context's capture

    std::uint64_t dropped() const { return ring->ring().dropped() - dropped_before; }
    std::uint64_t waits() const { return ring->ring().waits() - waits_before; }
    std::uint64_t wait_ticks() const { return ring->ring().wait_ticks() - wait_ticks_before; }
    std::uint32_t depth() const { return static_cast<std::uint32_t>(stack.size() - 1); }
};

}  // namespace ringprof::detail
