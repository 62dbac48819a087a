// A node's self time is its total minus its children's, never below zero: parallel children may
// hold more time than their parent (like user versus real time).
#include <gtest/gtest.h>

#include <string>

#include "ringprof/timers_json.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {
namespace {

TimerNode parent_of(double total, std::initializer_list<double> child_totals, bool parallel) {
    TimerNode p("parent");
    p.total = total;
    p.count = 1;
    int k = 0;
    for (double t : child_totals) {
        TimerNode& c = p.child("child_" + std::to_string(k++));
        c.total = t;
        c.count = 1;
        c.is_parallel = parallel;
    }
    return p;
}

TEST(SelfTime, IsTotalMinusChildrenForASequentialNode) {
    EXPECT_DOUBLE_EQ(parent_of(1.0, {0.25, 0.5}, false).self(), 0.25);
    EXPECT_DOUBLE_EQ(parent_of(1.0, {}, false).self(), 1.0);
}

TEST(SelfTime, IsZeroNotNegativeUnderParallelChildrenThatExceedTheParent) {
    EXPECT_DOUBLE_EQ(parent_of(1.0, {2.0, 1.5}, true).self(), 0.0);
}

TEST(SelfTime, TheTimersFileWritesTheClampedValue) {
    TimerTree t;
    t.root.total = 2.0;
    t.root.count = 1;
    t.root.children.push_back(parent_of(1.0, {2.0, 1.5}, true));
    const std::string json = write_timers_json(t, TimersFormat::Dict);
    EXPECT_EQ(json.find("\"self\": -"), std::string::npos) << json;
    EXPECT_NE(json.find("\"self\": 0.0"), std::string::npos) << json;
    EXPECT_NE(json.find("\"self\": 1.0"), std::string::npos) << "root: 2.0 - 1.0\n" << json;
}

}  // namespace
}  // namespace ringprof
