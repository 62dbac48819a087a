// A scope named "level" nested `levels` deep: the recursion the depth and drop tests record.
#pragma once

#include "ringprof/ringprof.hpp"

namespace ringprof::testing {

inline void nest_levels(int levels) {
    PROF_SCOPE("level");
    if (levels > 1) nest_levels(levels - 1);
}

}  // namespace ringprof::testing
