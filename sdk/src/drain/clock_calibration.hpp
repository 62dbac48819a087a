// Maps raw ticks (TSC, cntvct, or steady_clock) to nanoseconds and to the wall-clock epoch.
//
// One mapping per session, piecewise linear, continuous and increasing: a tick value converts
// to the same nanosecond whenever it is converted, so spans drained in different passes share
// one clock and nesting survives conversion (an earlier rate-per-refresh mapping let a child
// start 90 ns before its parent). Calibration still improves: refresh() measures the rate over
// an ever longer baseline (start -> now) and, once the baseline has doubled since the last
// knot, starts a new segment with that rate at a tick no conversion has reached yet. Old
// segments never change, so a time already written never moves. The epoch is read once, next
// to the first pair, so wall-clock steps (NTP) never bend the timeline.
//
// Threads: refresh() runs on the drainer; conversions run there and on the timeline writer.
// Segments are immutable once published (release store of the count, acquire load).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace ringprof::detail {

class ClockCalibration {
public:
    // Takes the first pair and the epoch. The first rate needs a baseline of kFirstBaselineNs, which
    // the constructor does not wait for: a session started by a thread's first marker would make
    // that thread wait. The first conversion (the drainer's first refresh) completes it.
    ClockCalibration();
    // A user clock of a known unit: nothing to calibrate.
    ClockCalibration(std::uint64_t (*custom)(), double seconds_per_tick);

    // Takes a new pair (drainer thread) and starts a new segment when the baseline has doubled
    // since the last one. Cheap: a few clock reads (the first call may wait for the first
    // baseline, as any first conversion does).
    void refresh();
    // Waits until kFirstBaselineNs after the first pair and publishes the first segment, once;
    // every conversion calls it, so none sees an empty mapping.
    void complete_first_segment() const;

    // The latest rate estimate: for durations (aggregates) and thresholds.
    double ns_per_tick() const;
    // Nanoseconds between two tick readings, at the latest rate.
    double to_ns(std::uint64_t ticks) const { return static_cast<double>(ticks) * ns_per_tick(); }
    // Nanoseconds since the session's first pair of a tick reading: the one mapping every
    // output's timestamps come from. Non-decreasing in `ticks`.
    std::int64_t offset_ns(std::uint64_t ticks) const;
    // Wall-clock nanoseconds since the Unix epoch of a tick reading.
    std::uint64_t to_epoch_ns(std::uint64_t ticks) const;
    // CLOCK_MONOTONIC nanoseconds of a tick reading.
    std::uint64_t to_monotonic_ns(std::uint64_t ticks) const;

    std::uint64_t start_ticks() const { return start_ticks_; }
    std::uint64_t start_epoch_ns() const { return start_epoch_ns_; }
    std::uint32_t segments() const { return published_segments(); }
    // Whether the first segment is there yet (without completing it).
    bool has_first_segment() const { return count_.load(std::memory_order_acquire) != 0; }

    static std::uint64_t monotonic_ns();
    static std::uint64_t epoch_ns();

    // A segment: ticks from `from_ticks` on map to base_ns + (ticks - from_ticks) * ns_per_tick.
    struct Segment {
        std::uint64_t from_ticks = 0;
        std::int64_t base_ns = 0;
        double ns_per_tick = 1.0;
    };

    // For tests: the knot logic with given pairs instead of clock reads. A segment starts at
    // `knot_ticks` (no earlier tick may have been converted) with the rate `ns_per_tick`.
    void add_segment(std::uint64_t knot_ticks, double ns_per_tick);

private:
    // The segments double their baseline: 2 ms, 4 ms, ... so 48 cover ~17 years.
    static constexpr std::uint32_t kMaxSegments = 48;
    static constexpr std::uint64_t kFirstBaselineNs = 2'000'000;

    // The count, completing the first segment first if needed.
    std::uint32_t published_segments() const;

    std::uint64_t start_ticks_;
    std::uint64_t start_mono_ns_;
    std::uint64_t start_epoch_ns_;
    // Mutable: the first segment is completed by the first conversion, a const call.
    mutable std::array<Segment, kMaxSegments> segments_{};
    mutable std::atomic<std::uint32_t> count_{0};
    mutable std::once_flag first_segment_once_;
    mutable std::uint64_t next_knot_after_ = 0;  // drainer only: ticks since start before the next knot
    bool fixed_rate_ = false;
};

}  // namespace ringprof::detail
