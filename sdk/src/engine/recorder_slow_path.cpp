// The markers' out-of-line path: a thread's first event (register its ring), the first event of
// the process (start the default session), and recording with a user clock.
#include <new>

#include "engine/ring_registry.hpp"
#include "engine/ring_room.hpp"
#include "ringprof/detail/recorder.hpp"
#include "engine/session_impl.hpp"

namespace ringprof::detail {

namespace {

// Set once this thread failed to get a ring: its records are counted as dropped without asking
// for memory again on every marker.
thread_local bool t_no_ring = false;

// Returns the calling thread's ring, registering it first, or null if nothing may be recorded
// now (recording off, the thread exiting, the drainer itself, no memory for a ring: counted as
// a drop). Starts the default session.
Ring* ring_for_recording(std::uint8_t& state) noexcept {
    state = g_state.load(std::memory_order_acquire);
    if (state == kOff) return nullptr;
    if (state == kNotStarted) {
        try {
            ensure_default_session();
        } catch (...) {
            return nullptr;  // out of memory or threads: the program goes on unmeasured
        }
        state = g_state.load(std::memory_order_acquire);
        if (state != kOn && state != kSlow) return nullptr;
    }
    if (t_ring == no_ring()) {
        if (t_no_ring) {
            count_ringless_drop();
            return nullptr;
        }
        try {
            ThreadRing* r = RingRegistry::instance().register_current_thread(ring_capacity_for_new_threads());
            if (r == nullptr) return nullptr;
            t_ring = &r->ring();
        } catch (const std::bad_alloc&) {
            t_no_ring = true;
            count_ringless_drop();
            return nullptr;
        } catch (...) {
            return nullptr;
        }
    }
    return t_ring;
}

}  // namespace

Closing begin_slow(const Site* site) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return kNotRecording;
    if (state == kOn) return closing_for(ring, ring->try_begin(make_tag(site, EventKind::Begin)));
    Event e{slow_ticks(), make_tag(site, EventKind::Begin)};
    const bool admitted = ring->try_open(&e, 1);
    return admitted ? closing_for(ring, true) | kSlowClock : closing_for(ring, false);
}

Closing open_slow(Event* events, std::uint64_t n) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return kNotRecording;
    if (state == kOn) {
        events[0].tsc = read_ticks();
        return closing_for(ring, ring->try_open(events, n));
    }
    events[0].tsc = slow_ticks();
    const bool admitted = ring->try_open(events, n);
    return admitted ? closing_for(ring, true) | kSlowClock : closing_for(ring, false);
}

void close_slow(Closing closing, std::uint64_t tag) noexcept {
    Ring* ring = reinterpret_cast<Ring*>(closing & ~kClosingBits);
    if ((closing & kClosingBits) == kRefused) {
        ring->end_refused();
    } else {
        ring->end(tag, slow_ticks());
    }
}

bool write_slow(Event* events, std::uint64_t n) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return false;
    events[0].tsc = slow_ticks();
    return ring->try_write(events, n);
}

}  // namespace ringprof::detail
