// What recording takes from the session, which sits layers above it (sdk/layers.cmake). The first
// marker of a process starts the default session from its slow path, and a thread's first marker
// sizes its ring by the session's settings, so those calls must reach the session; they are
// declared here, where recording makes them, and defined in session/session.cpp, so no file of
// record/ includes a layer above it.
#pragma once

#include <cstdint>

namespace ringprof::detail {

// Starts the default session unless one exists (slow path of the first marker).
void ensure_default_session();
// Ring capacity (events) for threads registering now.
std::uint64_t ring_capacity_for_new_threads();

}  // namespace ringprof::detail
