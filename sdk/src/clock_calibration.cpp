#include "clock_calibration.hpp"

#include <time.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "ringprof/detail/clock.hpp"

namespace ringprof::detail {

namespace {

struct Pair {
    std::uint64_t ticks;
    std::uint64_t mono_ns;
};

// Brackets a monotonic read between two tick reads and keeps the tightest of a few tries, so
// a preemption between the reads does not skew the pair.
Pair read_pair() {
    Pair best{0, 0};
    std::uint64_t best_width = ~std::uint64_t{0};
    for (int i = 0; i < 5; ++i) {
        const std::uint64_t t0 = read_ticks();
        const std::uint64_t m = ClockCalibration::monotonic_ns();
        const std::uint64_t t1 = read_ticks();
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            best = Pair{t0 + (t1 - t0) / 2, m};
        }
    }
    return best;
}

}  // namespace

std::uint64_t ClockCalibration::monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t ClockCalibration::epoch_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

ClockCalibration::ClockCalibration() : ns_per_tick_(1.0) {
    const Pair first = read_pair();
    start_epoch_ns_ = epoch_ns() - (monotonic_ns() - first.mono_ns);
    start_ticks_ = first.ticks;
    start_mono_ns_ = first.mono_ns;
    // A short first baseline so early conversions are already close; refresh() improves it.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    refresh();
}

ClockCalibration::ClockCalibration(std::uint64_t (*custom)(), double seconds_per_tick)
    : ns_per_tick_(seconds_per_tick * 1e9), fixed_rate_(true) {
    start_ticks_ = custom();
    start_mono_ns_ = monotonic_ns();
    start_epoch_ns_ = epoch_ns();
}

void ClockCalibration::refresh() {
    if (fixed_rate_) return;
    const Pair now = read_pair();
    if (now.ticks <= start_ticks_ || now.mono_ns <= start_mono_ns_) return;
    ns_per_tick_.store(static_cast<double>(now.mono_ns - start_mono_ns_) /
                           static_cast<double>(now.ticks - start_ticks_),
                       std::memory_order_relaxed);
}

// Offsets are computed in double (small numbers) and added to the integer base, so epoch times
// keep nanosecond resolution (a double holding epoch nanoseconds would round to ~256 ns).
std::int64_t ClockCalibration::offset_ns(std::uint64_t ticks) const {
    const auto dt = static_cast<std::int64_t>(ticks - start_ticks_);
    return std::llround(static_cast<double>(dt) * ns_per_tick());
}

std::uint64_t ClockCalibration::to_monotonic_ns(std::uint64_t ticks) const {
    return start_mono_ns_ + static_cast<std::uint64_t>(offset_ns(ticks));
}

std::uint64_t ClockCalibration::to_epoch_ns(std::uint64_t ticks) const {
    return start_epoch_ns_ + static_cast<std::uint64_t>(offset_ns(ticks));
}

}  // namespace ringprof::detail
