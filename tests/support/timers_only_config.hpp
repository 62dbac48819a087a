// The session most tests want: the timers output alone, written into the test's own folder.
#pragma once

#include "ringprof/config.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {

// `run_id` names the output files (<run_id>_timers.json).
inline Config timers_only(const TempDir& dir, const char* run_id = "test") {
    Config c;
    c.output_dir = dir.str();
    c.run_id = run_id;
    c.backends = {"timers"};
    c.system_metrics = false;  // no sampler thread, no system/ folder, no "no GPU rows" line
    return c;
}

}  // namespace ringprof::testing
