// What the markers' slow path (recorder_slow_path.cpp) counts for the snapshots: scopes it saw
// closed elsewhere and records it refused in signal handlers.
#pragma once

#include <cstdint>

namespace ringprof::detail {

// Scopes the slow path saw closed on another thread than the one that opened them.
std::uint64_t foreign_closes() noexcept;
// Records refused because a signal handler made them; part of the dropped scopes.
std::uint64_t signal_handler_drops() noexcept;

}  // namespace ringprof::detail
