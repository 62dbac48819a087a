// A custom clock the test moves by hand, so every duration in a profile is exact: one tick is
// one millisecond (time_unit 1e-3) and code under test "takes" exactly what it advances.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "ringprof/profile.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {

inline std::atomic<std::uint64_t> g_fake_now{1000};

inline std::uint64_t fake_clock() { return g_fake_now.load(std::memory_order_relaxed); }
inline void advance_ms(std::uint64_t ms) { g_fake_now.fetch_add(ms, std::memory_order_relaxed); }

// A Profile on the fake clock whose session writes only the stats backend into `dir`.
inline ProfileOptions fake_clock_options(const TempDir& dir) {
    ProfileOptions o;
    o.custom_timer = &fake_clock;
    o.time_unit = 1e-3;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "test";
    c.backends = {"stats"};
    o.session = c;
    return o;
}

}  // namespace ringprof::testing
