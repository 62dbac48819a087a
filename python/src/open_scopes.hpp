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

// Grows to the deepest nesting seen on the thread, then never allocates again.
inline thread_local std::vector<OpenFrame> t_open_frames;

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
