// What one recorded scope costs its enclosing scope, measured once at session start: every
// child marker runs inside its parent's interval, so a node with a million tiny children would
// otherwise show mostly instrumentation as self time.
#pragma once

#include <cstdint>

namespace ringprof::detail {

// Clock ticks one Begin+End pair takes on this machine (the median of a few short runs on a
// private ring, so it never touches a thread's real ring).
std::uint64_t measure_marker_cost_ticks();

}  // namespace ringprof::detail
