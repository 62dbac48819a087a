#include "drain/clock_calibration.hpp"

#include <time.h>

#include <cerrno>
#include <cmath>

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

// A new segment starts this far (a fraction of the baseline) past the refresh's own reading:
// spans converted before the refresh were read before it, give or take the few microseconds
// TSCs of different cores may disagree by, so none of them lies beyond the knot.
constexpr std::uint64_t kKnotMarginDivisor = 1024;

// std::llround's result (halfway cases away from zero) without its library call: the timeline
// writer converts two ticks per span, and the call was ~25 of the ~45 instructions of each
// conversion (callgrind of bench_pipeline's BM_PipelineFlatOut, every output on). Exact: below
// 2^52 a double's distance to its truncation is computed without rounding, and from 2^52 on
// every double is an integer (those, and NaN, still go to llround).
std::int64_t round_half_away(double x) {
    constexpr double kEveryDoubleAnInteger = 4503599627370496.0;  // 2^52
    if (!(std::fabs(x) < kEveryDoubleAnInteger)) return std::llround(x);
    const auto toward_zero = static_cast<std::int64_t>(x);
    const double fraction = x - static_cast<double>(toward_zero);
    return toward_zero + (fraction >= 0.5 ? 1 : 0) - (fraction <= -0.5 ? 1 : 0);
}

}  // namespace

// Until an absolute time: a relative sleep restarted after each signal is given back its
// remaining time plus the kernel's timer slack (50 us), so under a flood of signals (a sampling
// profiler's, a test's) it never ended and the session never started.
namespace {
void sleep_until_monotonic(std::uint64_t deadline_ns) {
    const timespec at{static_cast<time_t>(deadline_ns / 1000000000ull), static_cast<long>(deadline_ns % 1000000000ull)};
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
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

ClockCalibration::ClockCalibration() {
    const Pair first = read_pair();
    start_epoch_ns_ = epoch_ns() - (monotonic_ns() - first.mono_ns);
    start_ticks_ = first.ticks;
    start_mono_ns_ = first.mono_ns;
}

// Any conversion needs the first segment; whichever thread converts first completes it (the
// drainer does so as soon as it starts, so in practice no conversion waits).
void ClockCalibration::complete_first_segment() const {
    if (count_.load(std::memory_order_acquire) != 0) return;
    std::call_once(first_segment_once_, [this] {
        // A short first baseline so early conversions are already close; refresh() improves it.
        sleep_until_monotonic(start_mono_ns_ + kFirstBaselineNs);
        const Pair now = read_pair();
        double rate = 1.0;
        if (now.ticks > start_ticks_ && now.mono_ns > start_mono_ns_) {
            rate = static_cast<double>(now.mono_ns - start_mono_ns_) / static_cast<double>(now.ticks - start_ticks_);
        }
        segments_[0] = Segment{start_ticks_, 0, rate};
        next_knot_after_ = 2 * (now.ticks - start_ticks_);
        count_.store(1, std::memory_order_release);  // publishes both
    });
}

ClockCalibration::ClockCalibration(std::uint64_t (*custom)(), double seconds_per_tick) : fixed_rate_(true) {
    start_ticks_ = custom();
    start_mono_ns_ = monotonic_ns();
    start_epoch_ns_ = epoch_ns();
    segments_[0] = Segment{start_ticks_, 0, seconds_per_tick * 1e9};
    count_.store(1, std::memory_order_release);
}

void ClockCalibration::refresh() {
    if (fixed_rate_) return;
    complete_first_segment();
    // Most calls (every drainer pass) end here: one tick read.
    if (read_ticks() - start_ticks_ < next_knot_after_) return;
    const Pair now = read_pair();
    if (now.ticks <= start_ticks_ || now.mono_ns <= start_mono_ns_) return;
    const std::uint64_t baseline = now.ticks - start_ticks_;
    next_knot_after_ = 2 * baseline;
    add_segment(now.ticks + baseline / kKnotMarginDivisor,
                static_cast<double>(now.mono_ns - start_mono_ns_) / static_cast<double>(baseline));
}

void ClockCalibration::add_segment(std::uint64_t knot_ticks, double ns_per_tick) {
    complete_first_segment();
    const std::uint32_t n = count_.load(std::memory_order_relaxed);
    if (n >= kMaxSegments || !(ns_per_tick > 0.0) || !std::isfinite(ns_per_tick)) return;
    if (knot_ticks <= segments_[n - 1].from_ticks) return;
    // Continuous: the new segment starts where the current mapping puts the knot.
    segments_[n] = Segment{knot_ticks, offset_ns(knot_ticks), ns_per_tick};
    count_.store(n + 1, std::memory_order_release);
}

std::uint32_t ClockCalibration::published_segments() const {
    std::uint32_t n = count_.load(std::memory_order_acquire);
    if (n == 0) {
        complete_first_segment();
        n = count_.load(std::memory_order_acquire);
    }
    return n;
}

double ClockCalibration::ns_per_tick() const { return segments_[published_segments() - 1].ns_per_tick; }

// Offsets are computed in double (small numbers) and added to the integer base, so epoch times
// keep nanosecond resolution (a double holding epoch nanoseconds would round to ~256 ns).
std::int64_t ClockCalibration::offset_ns(std::uint64_t ticks) const {
    std::uint32_t k = published_segments() - 1;
    // Ticks before the session's first pair extend the first segment backwards.
    while (k > 0 && static_cast<std::int64_t>(ticks - segments_[k].from_ticks) < 0) --k;
    const Segment& s = segments_[k];
    const auto dt = static_cast<std::int64_t>(ticks - s.from_ticks);
    return s.base_ns + round_half_away(static_cast<double>(dt) * s.ns_per_tick);
}

std::uint64_t ClockCalibration::to_monotonic_ns(std::uint64_t ticks) const {
    return start_mono_ns_ + static_cast<std::uint64_t>(offset_ns(ticks));
}

std::uint64_t ClockCalibration::to_epoch_ns(std::uint64_t ticks) const {
    return start_epoch_ns_ + static_cast<std::uint64_t>(offset_ns(ticks));
}

}  // namespace ringprof::detail
