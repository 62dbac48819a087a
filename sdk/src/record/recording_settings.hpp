// What a session sets for recording when it starts, kept here so that recording reads it without
// reaching up to the session: the size of the rings of threads that register from then on, and
// the clock of a session with a custom clock. The session stores them before markers may record
// into it (before its state turns on), so a marker finds them set by the time it reads them.
#pragma once

#include <cstdint>

namespace ringprof::detail {

void set_ring_capacity_for_new_threads(std::uint64_t events) noexcept;
// Ring capacity (events) for threads registering now.
std::uint64_t ring_capacity_for_new_threads() noexcept;

// Null: the built-in clock. slow_ticks() (ringprof/detail/recorder.hpp) reads the clock set here.
void set_recording_clock(std::uint64_t (*custom_clock)()) noexcept;

}  // namespace ringprof::detail
