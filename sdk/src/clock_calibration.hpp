// Maps raw ticks (TSC, cntvct, or steady_clock) to nanoseconds and to the wall-clock epoch.
//
// Two (ticks, CLOCK_MONOTONIC) pairs far apart give the tick rate; the baseline grows with every
// refresh, so the rate gets more exact the longer the session runs. The epoch is read once, next
// to the first pair, so wall-clock steps (NTP) never bend the timeline.
#pragma once

#include <atomic>
#include <cstdint>

namespace ringprof::detail {

class ClockCalibration {
public:
    ClockCalibration();  // takes the first pair and the epoch
    // A user clock of a known unit: nothing to calibrate.
    ClockCalibration(std::uint64_t (*custom)(), double seconds_per_tick);

    // Takes a new pair (drainer thread). Cheap: two clock reads.
    void refresh();

    double ns_per_tick() const { return ns_per_tick_.load(std::memory_order_relaxed); }
    // Nanoseconds between two tick readings.
    double to_ns(std::uint64_t ticks) const { return static_cast<double>(ticks) * ns_per_tick(); }
    // Wall-clock nanoseconds since the Unix epoch of a tick reading.
    std::uint64_t to_epoch_ns(std::uint64_t ticks) const;
    // CLOCK_MONOTONIC nanoseconds of a tick reading.
    std::uint64_t to_monotonic_ns(std::uint64_t ticks) const;

    std::uint64_t start_ticks() const { return start_ticks_; }
    std::uint64_t start_epoch_ns() const { return start_epoch_ns_; }

    static std::uint64_t monotonic_ns();
    static std::uint64_t epoch_ns();

private:
    std::int64_t offset_ns(std::uint64_t ticks) const;

    std::uint64_t start_ticks_;
    std::uint64_t start_mono_ns_;
    std::uint64_t start_epoch_ns_;
    std::atomic<double> ns_per_tick_;
    bool fixed_rate_ = false;
};

}  // namespace ringprof::detail
