// Ticks become seconds at the right rate: a timer's total is bracketed by the sleep inside it
// (below) and by std::chrono::steady_clock read around it (above). Correctness of the
// conversion, not speed: the bounds hold however loaded the machine is.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "drain/clock_calibration.hpp"
#include "ringprof/detail/clock.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSleep = std::chrono::milliseconds(30);

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

TEST(ClockConversion, ATimersTotalLiesBetweenItsSleepAndTheSteadyClockAroundIt) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "clock");
    Session session(c);
    const auto before = Clock::now();
    {
        PROF_SCOPE("sleeping");
        std::this_thread::sleep_for(kSleep);
    }
    const auto after = Clock::now();
    const Snapshot s = session.snapshot();
    const TimerNode* node = s.tree.root.find("sleeping");
    ASSERT_NE(node, nullptr);
    const double slept = std::chrono::duration<double>(kSleep).count();
    // Calibration against CLOCK_MONOTONIC is exact to well under 1%; allow 2% either way.
    EXPECT_GE(node->total, slept * 0.98);
    EXPECT_LE(node->total, seconds_between(before, after) * 1.02);
}

TEST(ClockConversion, CalibratedTicksMatchTheMonotonicClock) {
    detail::ClockCalibration clock;
    const auto before = Clock::now();
    const std::uint64_t t0 = detail::read_ticks();
    std::this_thread::sleep_for(kSleep);
    const std::uint64_t t1 = detail::read_ticks();
    const auto after = Clock::now();
    clock.refresh();
    const double ns = clock.to_ns(t1 - t0);
    const double slept_ns = std::chrono::duration<double, std::nano>(kSleep).count();
    EXPECT_GE(ns, slept_ns * 0.98);
    EXPECT_LE(ns, seconds_between(before, after) * 1e9 * 1.02);
    // Monotonic times of the two readings are as far apart as their tick difference says.
    const double mono_gap = static_cast<double>(clock.to_monotonic_ns(t1) - clock.to_monotonic_ns(t0));
    EXPECT_NEAR(mono_gap, ns, ns * 0.001 + 2.0);
}

// A session started by a thread's first marker builds its clock on that thread: the first rate's
// baseline (2 ms) is waited for by the first conversion (the drainer's), not by the constructor.
TEST(ClockConversion, TheConstructorLeavesTheFirstBaselineToTheFirstConversion) {
    detail::ClockCalibration clock;
    EXPECT_FALSE(clock.has_first_segment()) << "the constructor waited for the first baseline";
    const double ns = clock.to_ns(1'000'000);
    EXPECT_TRUE(clock.has_first_segment());
    EXPECT_GT(ns, 0.0);
    EXPECT_EQ(clock.segments(), 1u);
}

// Whichever threads convert first, they complete one first segment and agree on it.
TEST(ClockConversion, ThreadsConvertingFirstTogetherAgreeOnOneFirstSegment) {
    detail::ClockCalibration clock;
    std::atomic<bool> go{false};
    std::vector<double> rates(4, 0.0);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < rates.size(); ++i) {
        threads.emplace_back([&, i] {
            while (!go.load()) std::this_thread::yield();
            rates[i] = clock.ns_per_tick();
        });
    }
    go.store(true);
    for (auto& t : threads) t.join();
    EXPECT_EQ(clock.segments(), 1u);
    for (double r : rates) {
        EXPECT_GT(r, 0.0);
        EXPECT_EQ(r, rates[0]);
    }
}

TEST(ClockConversion, AUserClockOfKnownUnitIsScaledByIt) {
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-6);  // 1 tick = 1 us
    EXPECT_DOUBLE_EQ(clock.to_ns(2500), 2'500'000.0);
    EXPECT_EQ(clock.to_monotonic_ns(7) - clock.to_monotonic_ns(2), 5000u);
}

}  // namespace
}  // namespace ringprof
