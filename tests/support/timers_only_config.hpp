// The session most tests want: the timers output alone, written into the test's own folder.
#pragma once

#include "ringprof/config.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {

inline Config timers_only(const TempDir& dir) {
    Config c;
    c.output_dir = dir.str();
    c.run_id = "test";
    c.backends = {"timers"};
    return c;
}

}  // namespace ringprof::testing
