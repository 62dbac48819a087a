// The one call recording makes to the session, which sits layers above it (sdk/layers.cmake): the
// first marker of a process starts the default session from its slow path. It is declared here,
// where recording makes it, and defined in session/session.cpp, so no file of record/ includes a
// layer above it. What else recording takes from the session, the session hands down when it
// starts (recording_settings.hpp, ring_room.hpp's full-ring policy).
#pragma once

namespace ringprof::detail {

// Starts the default session unless one exists (slow path of the first marker).
void ensure_default_session();

}  // namespace ringprof::detail
