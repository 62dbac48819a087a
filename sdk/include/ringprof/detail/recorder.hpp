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

#ifndef RINGPROF_ENABLED
#define RINGPROF_ENABLED 1
#endif

namespace ringprof::detail {

enum RecorderState : std::uint8_t {
    kOff = 0,         // disabled at run time: markers do nothing
    kOn = 1,          // recording with the built-in clock
    kNotStarted = 2,  // no session yet: the first marker starts the default session
    kSlow = 3,        // recording, but every marker takes the slow path (custom clock)
};

// Constant-initialized inline variables: every translation unit sees the initializer, so the
// compiler reads them directly instead of through a TLS wrapper or an init guard.
inline std::atomic<std::uint8_t> g_state{kNotStarted};
inline thread_local Ring* t_ring = nullptr;

// Out of line (sdk/src/recorder_slow_path.cpp).
// Return the ring the scope belongs to (null: not recording) and whether it was admitted.
Ring* begin_slow(const Site* site, bool& admitted) noexcept;
Ring* open_slow(Event* events, std::uint64_t n, bool& admitted) noexcept;  // fills events[0].tsc
bool write_slow(Event* events, std::uint64_t n) noexcept;
std::uint64_t slow_ticks() noexcept;

inline bool uses_fast_path() noexcept {
    return g_state.load(std::memory_order_relaxed) == kOn && t_ring != nullptr;
}
inline bool is_off() noexcept { return g_state.load(std::memory_order_relaxed) == kOff; }

inline std::uint64_t end_ticks() noexcept {
    return __builtin_expect(g_state.load(std::memory_order_relaxed) != kSlow, 1) ? read_ticks() : slow_ticks();
}

// The RAII marker behind PROF_SCOPE / PROF_FUNCTION.
class Scope {
public:
    explicit Scope(const Site* site) noexcept : site_(site) {
        const std::uint8_t state = g_state.load(std::memory_order_relaxed);
        Ring* ring = t_ring;
        if (__builtin_expect(state == kOn && ring != nullptr, 1)) {
            ring_ = ring;
            admitted_ = ring->try_begin(make_tag(site, EventKind::Begin));
        } else if (state != kOff) {
            ring_ = begin_slow(site, admitted_);
        }
    }
    ~Scope() {
        if (ring_ == nullptr) return;
        if (__builtin_expect(admitted_, 1)) {
            ring_->end(make_tag(site_, EventKind::End), end_ticks());
        } else {
            ring_->end_refused();
        }
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    const Site* site_;
    Ring* ring_ = nullptr;
    bool admitted_ = false;
};

// A scope opened by a record of several events (step, adopted context, signature): the record
// is built by the caller with events[0] as the opening event, then closed by `close_tag`.
class RecordScope {
public:
    RecordScope() noexcept = default;
    void open(Event* events, std::uint64_t n, std::uint64_t close_tag) noexcept {
        close_tag_ = close_tag;
        if (uses_fast_path()) {
            events[0].tsc = read_ticks();
            ring_ = t_ring;
            admitted_ = ring_->try_open(events, n);
        } else if (!is_off()) {
            ring_ = open_slow(events, n, admitted_);
        }
    }
    ~RecordScope() {
        if (ring_ == nullptr) return;
        if (admitted_) {
            ring_->end(close_tag_, end_ticks());
        } else {
            ring_->end_refused();
        }
    }
    RecordScope(const RecordScope&) = delete;
    RecordScope& operator=(const RecordScope&) = delete;

private:
    Ring* ring_ = nullptr;
    bool admitted_ = false;
    std::uint64_t close_tag_ = 0;
};

// A one-off record (gauge, context capture); events[0].tsc is filled in here.
inline bool write_record(Event* events, std::uint64_t n) noexcept {
    if (uses_fast_path()) {
        events[0].tsc = read_ticks();
        return t_ring->try_write(events, n);
    }
    if (is_off()) return false;
    return write_slow(events, n);
}

inline Event payload(std::uint64_t a, std::uint64_t b = 0) noexcept {
    return Event{a, b};
}
inline std::uint64_t bits_of(double v) noexcept {
    std::uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

}  // namespace ringprof::detail
