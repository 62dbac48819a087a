// The scopes a Python thread has open. A `with` block enters and exits through two separate
// calls, so the marker's closing word (what the C++ Scope keeps in a local) is kept here, per
// thread, until the matching exit. The owner says which Python object opened the frame, so a
// scope closed twice or out of order is refused with an exception instead of corrupting the
// thread's nesting.
#pragma once

#include <cstdint>
#include <vector>

#include "ringprof/detail/recorder.hpp"

namespace ringprof::python {

struct OpenFrame {
    detail::Closing closing;
    std::uint64_t close_tag;
    const void* owner;
};

// What a Python thread keeps between calls. Reached through one plain TLS pointer: a
// thread_local object with a constructor would add an initialization check to every access
// (measured: 0.5% of a profiled program, beside the lookup itself).
struct ThreadState {
    std::vector<OpenFrame> frames;   // grows to the deepest nesting seen, then never allocates
    std::vector<std::uint64_t> key;  // the profile hook's scratch key (profile_hook.cpp)
    int hook_frames = 0;             // frames the profile hook opened and has not closed
};

extern __thread ThreadState* t_state;  // open_scopes.cpp
// The first call on a thread: makes its state (freed when the thread ends). Null when out of
// memory.
ThreadState* make_thread_state() noexcept;

inline ThreadState* thread_state() noexcept {
    ThreadState* s = t_state;
    return __builtin_expect(s != nullptr, 1) ? s : make_thread_state();
}

// A marker's begin, as PROF_SCOPE's constructor does it.
inline detail::Closing begin_scope(const Site* site) noexcept {
    using namespace ringprof::detail;
    const std::uint8_t state = g_state.load(std::memory_order_relaxed);
    Ring* ring = t_ring;
    if (__builtin_expect(state == kOn && ring != nullptr, 1)) {
        return closing_for(ring, ring->try_begin(make_tag(site, EventKind::Begin)));
    }
    if (state != kOff) return begin_slow(site);
    return kNotRecording;
}

// A multi-event record opening a scope (a step), as RecordScope::open does it.
inline detail::Closing open_record(detail::Event* events, std::uint64_t n) noexcept {
    using namespace ringprof::detail;
    if (uses_fast_path()) {
        events[0].tsc = read_ticks();
        Ring* ring = t_ring;
        return closing_for(ring, ring->try_open(events, n));
    }
    if (!is_off()) return open_slow(events, n);
    return kNotRecording;
}

}  // namespace ringprof::python
