// The markers' out-of-line path: a thread's first event (register its ring), the first event of
// the process (start the default session), and recording with a user clock.
#include <atomic>
#include <new>

#include "record/default_session.hpp"
#include "record/recording_settings.hpp"
#include "record/ring_registry.hpp"
#include "record/ring_room.hpp"
#include "record/slow_path_counts.hpp"
#include "ringprof/detail/recorder.hpp"

namespace ringprof::detail {

namespace {

// Set once this thread failed to get a ring: its records are counted as dropped without asking
// for memory again on every marker.
thread_local bool t_no_ring = false;
// This thread is inside the slow path (starting the session, registering its ring: it may hold
// their locks). A marker that finds it set was run by a signal handler that interrupted it; it
// is refused, counted, rather than waiting for a lock its own thread holds.
__thread bool t_in_slow_path = false;
std::atomic<std::uint64_t> g_foreign_closes{0};
std::atomic<std::uint64_t> g_signal_handler_drops{0};

class InSlowPath {
public:
    InSlowPath() noexcept { t_in_slow_path = true; }
    ~InSlowPath() { t_in_slow_path = false; }
    InSlowPath(const InSlowPath&) = delete;
    InSlowPath& operator=(const InSlowPath&) = delete;
};

// Returns the calling thread's ring, registering it first, or null if nothing may be recorded
// now (recording off, the thread exiting, the drainer itself, no memory for a ring, a signal
// handler: counted as a drop). Starts the default session.
Ring* ring_for_recording(std::uint8_t& state) noexcept {
    state = g_state.load(std::memory_order_acquire);
    if (state == kOff) return nullptr;
    // Only what is async-signal-safe comes before these checks.
    if (t_ring == signal_handler_ring() || t_in_slow_path) {
        g_signal_handler_drops.fetch_add(1, std::memory_order_relaxed);  // lock-free: signal-safe
        return nullptr;
    }
    InSlowPath guard;
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

// The slow path's work on the thread's ring (room, segments, a recorded wait) is a write window
// too (recorder.hpp, signal_handler_ring()): a plain handler's marker landing in it is refused.
class RingWrite {
public:
    explicit RingWrite(Ring* ring) noexcept : ring_(ring) { enter_ring_write(); }
    ~RingWrite() { leave_ring_write(ring_); }
    RingWrite(const RingWrite&) = delete;
    RingWrite& operator=(const RingWrite&) = delete;

private:
    Ring* ring_;
};

}  // namespace

Closing begin_slow(const Site* site) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return kNotRecording;
    RingWrite writing(ring);
    if (state == kOn) return closing_for(ring, ring->try_begin(make_tag(site, EventKind::Begin)));
    Event e{slow_ticks(), make_tag(site, EventKind::Begin)};
    const bool admitted = ring->try_open(&e, 1);
    return admitted ? closing_for(ring, true) | kSlowClock : closing_for(ring, false);
}

Closing open_slow(Event* events, std::uint64_t n) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return kNotRecording;
    RingWrite writing(ring);
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
    if (ring != t_ring) {
        // A scope ended on another thread than the one that opened it (a coroutine resumed
        // elsewhere), or after its thread's ring went: that ring belongs to its own thread, and
        // writing it from here would race with it. Counted; and this thread's own ring says
        // when, so that the drainer closes the scope in its opener's nesting at that time
        // instead of leaving it open below everything the opener does next.
        // The opener's ring is told too, so that it does not keep room (or refusal) for an End
        // that never comes; it outlives its thread while such a scope is out (ThreadRing::retire).
        g_foreign_closes.fetch_add(1, std::memory_order_relaxed);
        if ((closing & kClosingBits) == kRefused) {
            ring->end_refused_elsewhere();
        } else {
            ring->end_elsewhere();
            Event note[2] = {{0, make_tag(ring, EventKind::EndElsewhere)}, {tag, 0}};
            if (!write_slow(note, 2)) ring->note_lost();
        }
        return;
    }
    RingWrite writing(ring);
    if ((closing & kClosingBits) == kRefused) {
        ring->end_refused();
    } else {
        ring->end(tag, slow_ticks());
    }
}

std::uint64_t foreign_closes() noexcept { return g_foreign_closes.load(std::memory_order_relaxed); }
std::uint64_t signal_handler_drops() noexcept { return g_signal_handler_drops.load(std::memory_order_relaxed); }

bool write_slow(Event* events, std::uint64_t n) noexcept {
    std::uint8_t state = 0;
    Ring* ring = ring_for_recording(state);
    if (ring == nullptr) return false;
    RingWrite writing(ring);
    events[0].tsc = slow_ticks();
    return ring->try_write(events, n);
}

}  // namespace ringprof::detail
