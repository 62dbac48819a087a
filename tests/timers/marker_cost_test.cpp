// Self time with many tiny children is mostly instrumentation unless the measured marker cost
// is subtracted. Checked on a synthetic event stream with exact tick values.
#include <gtest/gtest.h>

#include <string>

#include "aggregator.hpp"
#include "clock_calibration.hpp"
#include "marker_cost.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "thread_ring.hpp"

namespace ringprof {
namespace {

using namespace detail;

constexpr Site kParent{"parent", "test", __FILE__, __LINE__};
constexpr Site kChild{"child", "test", __FILE__, __LINE__};

// parent [0, 1000) with 10 children of 50 ticks each; returns the folded tree.
TimerNode fold_with_cost(std::uint64_t cost_ticks, bool subtract) {
    ThreadRing ring(64);
    std::vector<Event> events{{0, make_tag(&kParent, EventKind::Begin)}};
    for (std::uint64_t i = 0; i < 10; ++i) {
        events.push_back({100 + i * 80, make_tag(&kChild, EventKind::Begin)});
        events.push_back({150 + i * 80, make_tag(&kChild, EventKind::End)});
    }
    events.push_back({1000, make_tag(&kParent, EventKind::End)});
    EXPECT_TRUE(ring.ring().try_write(events.data(), events.size()));
    ClockCalibration clock(+[]() -> std::uint64_t { return 0; }, 1e-9);  // 1 tick = 1 ns
    Aggregator aggregator(clock);
    aggregator.set_marker_cost(cost_ticks, subtract);
    ThreadTrack track(&ring, 0);
    aggregator.decode(track, 0, events.size(), nullptr);
    Snapshot s;
    aggregator.fill(s, {&track});
    return *s.tree.root.find("parent");
}

TEST(MarkerCost, SubtractingChargesEachChildMarkerToItsParent) {
    const TimerNode raw = fold_with_cost(20, false);
    const TimerNode adjusted = fold_with_cost(20, true);
    EXPECT_DOUBLE_EQ(raw.total, 1000e-9);
    EXPECT_DOUBLE_EQ(raw.self(), 500e-9);
    EXPECT_DOUBLE_EQ(adjusted.total, (1000 - 10 * 20) * 1e-9);
    EXPECT_DOUBLE_EQ(adjusted.self(), (500 - 10 * 20) * 1e-9);
    EXPECT_DOUBLE_EQ(adjusted.find("child")->total, raw.find("child")->total);
}

TEST(MarkerCost, IsMeasuredAtStartAndReportedInTheMetadata) {
    EXPECT_GT(measure_marker_cost_ticks(), 0u);
    testing::TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "cost";
    c.backends = {"timers"};
    c.subtract_overhead = true;
    Session session(c);
    const Snapshot s = session.snapshot();
    ASSERT_NE(s.tree.find_metadata("marker_cost_ns"), nullptr);
    EXPECT_GT(std::stod(*s.tree.find_metadata("marker_cost_ns")), 0.0);
    EXPECT_EQ(*s.tree.find_metadata("marker_cost_subtracted"), "true");
}

}  // namespace
}  // namespace ringprof
