// The hot path's clock: raw, monotonic ticks. The drainer maps ticks to nanoseconds and to the
// wall-clock epoch (sdk/src/engine/clock_calibration.*), so reading the clock is a single instruction.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(_M_X64)
#include <x86intrin.h>
#define RINGPROF_CLOCK_TSC 1
#elif defined(__aarch64__)
#define RINGPROF_CLOCK_CNTVCT 1
#else
#include <chrono>
#endif

namespace ringprof::detail {

inline std::uint64_t read_ticks() noexcept {
#if defined(RINGPROF_CLOCK_TSC)
    return __rdtsc();
#elif defined(RINGPROF_CLOCK_CNTVCT)
    std::uint64_t v;
    asm volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

}  // namespace ringprof::detail
