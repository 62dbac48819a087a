// The hot path: what PROF_SCOPE and friends expand to. Everything here is inline and touches
// only the calling thread's ring plus one global state byte; anything rarer (the first event of
// a thread, starting the default session, a custom clock) goes through an out-of-line slow path.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "ringprof/detail/clock.hpp"
#include "ringprof/detail/event.hpp"
#include "ringprof/detail/ring.hpp"
#include "ringprof/site.hpp"

namespace ringprof::detail {

enum RecorderState : std::uint8_t {
    kOff = 0,         // disabled at run time: markers do nothing
    kOn = 1,          // recording with the built-in clock
    kNotStarted = 2,  // no session yet: the first marker starts the default session
    kSlow = 3,        // recording, but every marker takes the slow path (custom clock)
};

// Defined once, in the library (sdk/src/record/hot_path_globals.cpp), and exported even from modules
// built with hidden visibility: with inline definitions, every shared object holding a copy of
// the markers (a Python extension, a user's plugin) would bind to its own state and ring, that
// is, run a second engine. `__thread` (constant-initialized by definition) keeps the access a
// plain TLS load with no wrapper call, as the inline thread_local was.
#define RINGPROF_HOT_PATH_GLOBAL __attribute__((visibility("default")))
extern RINGPROF_HOT_PATH_GLOBAL std::atomic<std::uint8_t> g_state;
// Never null: a thread without a ring points at a sentinel (no_ring()) that never has room, so
// the markers' room check alone sends a thread's first marker to the slow path.
extern RINGPROF_HOT_PATH_GLOBAL __thread Ring* t_ring;

// How an open scope is closed, decided once when it opens so that the closing path tests one
// word: the ring's address (64-aligned, so its low bits are free) with the low bits saying how.
// A plain Ring* is a recorded scope on the built-in clock: the only case the inline end handles
// (on the thread that owns the ring).
using Closing = std::uintptr_t;
inline constexpr Closing kRefused = 1;    // ring | kRefused: the ring refused it (end_refused)
inline constexpr Closing kSlowClock = 2;  // ring | kSlowClock: ends with the custom clock
inline constexpr Closing kClosingBits = 3;
inline constexpr Closing kNotRecording = 3;  // nothing to close (off, or no ring)
static_assert(alignof(Ring) > kClosingBits, "a ring's low address bits carry how its scope closes");

inline Closing closing_for(Ring* ring, bool admitted) noexcept {
    // Two arms rather than an OR of the flag: an admitted scope's word is then the ring pointer
    // itself, with no zero flag computed and OR-ed in (measured: 2 instructions per scope).
    return admitted ? reinterpret_cast<Closing>(ring) : reinterpret_cast<Closing>(ring) | kRefused;
}

// What t_ring points at while the thread has no ring (hot_path_globals.cpp).
Ring* no_ring() noexcept;

// A ring that never has room and whose slow path refuses every record, counted as dropped (in a
// signal handler). t_ring points at it while a signal handler ringprof knows of runs on the
// thread (ringprof/signal_handler.hpp), and while one of the thread's markers writes its ring:
// Problem: a handler installed with plain sigaction() runs on the thread it interrupts, possibly
// between a marker's read of the ring's cursor (or room) and its publish of the moved cursor; a
// marker in the handler would then write the same slot, and the interrupted marker would move
// the cursor back over the handler's records: both threads' scopes lost, none counted.
// Mechanism: a marker points t_ring here before it reads the ring's state and back once it has
// published, with plain stores of the thread's own variable (signal fences keep the compiler from
// moving the ring's accesses out of that window). A handler's marker that lands in the window
// is refused whole and counted; one that lands outside it finds the ring's state complete in
// memory and records normally. Bound: a Begin's and an End's write, a few instructions each.
union SentinelRing {
    Ring ring;
    constexpr SentinelRing() noexcept : ring() {}
    ~SentinelRing() {}  // never destroyed: a marker may run during static destruction
};
extern RINGPROF_HOT_PATH_GLOBAL SentinelRing g_refusing_ring;
inline Ring* signal_handler_ring() noexcept { return &g_refusing_ring.ring; }

// The window in which this thread's ring is being written (see signal_handler_ring()).
inline void enter_ring_write() noexcept {
    t_ring = signal_handler_ring();
    std::atomic_signal_fence(std::memory_order_seq_cst);
}
inline void leave_ring_write(Ring* ring) noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    t_ring = ring;
}

// Out of line (sdk/src/record/recorder_slow_path.cpp).
// Open a scope the inline path could not (first event of a thread or process, custom clock).
Closing begin_slow(const Site* site) noexcept;
Closing open_slow(Event* events, std::uint64_t n) noexcept;    // fills events[0].tsc
void close_slow(Closing closing, std::uint64_t tag) noexcept;  // refused or custom clock
bool write_slow(Event* events, std::uint64_t n) noexcept;
// The session's clock, custom or built-in (sdk/src/record/recording_settings.cpp).
std::uint64_t slow_ticks() noexcept;

inline bool is_off() noexcept { return g_state.load(std::memory_order_relaxed) == kOff; }

// Recording on the built-in clock into a ring with room for `n` events: the inline path. Any
// other case (off, custom clock, no ring yet, ring out of room) is decided out of line.
// Checked inside the write window: `ring` is t_ring as it was before it.
inline bool fast_path(Ring* ring, std::uint8_t state, std::uint64_t n) noexcept {
    return __builtin_expect(state == kOn && ring->has_room(n), 1);
}

// A marker's begin: how its scope will be closed.
inline Closing open_scope(const Site* site) noexcept {
    const std::uint8_t state = g_state.load(std::memory_order_relaxed);
    Ring* const ring = t_ring;
    enter_ring_write();
    if (fast_path(ring, state, 2)) {
        ring->begin(make_tag(site, EventKind::Begin));
        leave_ring_write(ring);
        // Said to be aligned, so the compiler knows the closing bits are 0 and drops the end's
        // test of them on this path (2 instructions per scope).
        return reinterpret_cast<Closing>(__builtin_assume_aligned(ring, alignof(Ring)));
    }
    leave_ring_write(ring);
    return state != kOff ? begin_slow(site) : kNotRecording;
}

// A record of `n` events opening a scope that `close_scope` ends; events[0].tsc is filled in.
inline Closing open_record(Event* events, std::uint64_t n) noexcept {
    const std::uint8_t state = g_state.load(std::memory_order_relaxed);
    Ring* const ring = t_ring;
    enter_ring_write();
    if (fast_path(ring, state, n + 1)) {
        events[0].tsc = read_ticks();
        ring->open(events, n);
        leave_ring_write(ring);
        return reinterpret_cast<Closing>(ring);
    }
    leave_ring_write(ring);
    return state != kOff ? open_slow(events, n) : kNotRecording;
}

// The clock a scope ends with is the one it began with: the end path never reads g_state.
// Only the thread that opened a scope ends it inline: the compare with this thread's ring (never
// tagged, so equal means recorded on the built-in clock) sends an end on another thread, which a
// task system makes easily, out of line, where it is counted instead of racing the ring's owner.
inline void close_scope(Closing closing, std::uint64_t tag) noexcept {
    if (__builtin_expect(closing == reinterpret_cast<Closing>(t_ring), 1)) {
        Ring* const ring = reinterpret_cast<Ring*>(closing);
        enter_ring_write();
        ring->end_now(tag);
        leave_ring_write(ring);
    } else if (closing != kNotRecording) {
        close_slow(closing, tag);
    }
}

// The RAII marker behind PROF_SCOPE / PROF_FUNCTION. Two words, both passed by value to the
// slow path, so the compiler keeps them in registers.
class Scope {
public:
    explicit Scope(const Site* site) noexcept : site_(site), closing_(open_scope(site)) {}
    ~Scope() { close_scope(closing_, make_tag(site_, EventKind::End)); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    const Site* site_;
    Closing closing_;
};

// A scope opened by a record of several events (step, adopted context, signature): the record
// is built by the caller with events[0] as the opening event, then closed by `close_tag`.
class RecordScope {
public:
    RecordScope() noexcept = default;
    void open(Event* events, std::uint64_t n, std::uint64_t close_tag) noexcept {
        close_tag_ = close_tag;
        closing_ = open_record(events, n);
    }
    ~RecordScope() { close_scope(closing_, close_tag_); }
    RecordScope(const RecordScope&) = delete;
    RecordScope& operator=(const RecordScope&) = delete;

private:
    Closing closing_ = kNotRecording;
    std::uint64_t close_tag_ = 0;
};

// A one-off record (gauge, context capture); events[0].tsc is filled in here.
inline bool write_record(Event* events, std::uint64_t n) noexcept {
    const std::uint8_t state = g_state.load(std::memory_order_relaxed);
    Ring* const ring = t_ring;
    enter_ring_write();
    if (fast_path(ring, state, n)) {
        events[0].tsc = read_ticks();
        ring->write(events, n);
        leave_ring_write(ring);
        return true;
    }
    leave_ring_write(ring);
    return state != kOff && write_slow(events, n);
}

inline Event payload(std::uint64_t a, std::uint64_t b = 0) noexcept { return Event{a, b}; }
inline std::uint64_t bits_of(double v) noexcept {
    std::uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

}  // namespace ringprof::detail
