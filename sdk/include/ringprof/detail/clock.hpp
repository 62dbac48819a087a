// The hot path's clock: raw, monotonic ticks. The drainer maps ticks to nanoseconds and to the
// wall-clock epoch (sdk/src/drain/clock_calibration.*), so reading the clock is a single instruction.
#pragma once

#include <cstdint>
#include <cstring>

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

// Stores the clock's ticks at `dst`, as read_ticks() would return them. On x86 the two halves
// rdtsc leaves in two registers are stored as they are, rather than shifted and or-ed into one
// word first: two instructions fewer per event (little-endian, so the word reads the same).
inline void store_ticks(std::uint64_t* dst) noexcept {
#if defined(RINGPROF_CLOCK_TSC)
    std::uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    std::memcpy(reinterpret_cast<char*>(dst), &lo, sizeof lo);
    std::memcpy(reinterpret_cast<char*>(dst) + sizeof lo, &hi, sizeof hi);
#else
    *dst = read_ticks();
#endif
}

}  // namespace ringprof::detail
