// Events that do not nest (an End from a scope ended on another thread, an End lost to a marker
// in a signal handler) are found where they are decoded: counted, never charged to a scope they
// do not close, and the thread's nesting is whole again at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/aggregator.hpp"
#include "engine/clock_calibration.hpp"
#include "engine/thread_ring.hpp"
#include "ringprof/ringprof.hpp"

namespace ringprof {
namespace {

using namespace detail;

constexpr Site kOuter{"outer", "test", __FILE__, __LINE__};
constexpr Site kMoved{"moved", "test", __FILE__, __LINE__};
constexpr Site kInner{"inner", "test", __FILE__, __LINE__};
constexpr Site kNever{"never_opened", "test", __FILE__, __LINE__};

Event begin(const Site& s, std::uint64_t t) { return {t, make_tag(&s, EventKind::Begin)}; }
Event end(const Site& s, std::uint64_t t) { return {t, make_tag(&s, EventKind::End)}; }

struct Decoded {
    TimerTree tree;
    std::uint64_t misnested;
};

Decoded decode(const std::vector<Event>& events) {
    ThreadRing ring(64);
    EXPECT_TRUE(ring.ring().try_write(events.data(), events.size()));
    ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);  // 1 tick = 1 ns
    Aggregator aggregator(clock);
    ThreadTrack track(&ring);
    aggregator.decode(track, 0, events.size(), nullptr);
    Snapshot s;
    aggregator.fill(s, {&track});
    return {s.tree, aggregator.misnested()};
}

// outer { moved { inner ... } } where `moved` was ended by another thread while this one was in
// `inner`: its End closes `moved` and the `inner` still open inside it; `inner`'s own End comes
// later, finds nothing of it open, and is ignored. `outer` closes normally.
TEST(MisnestedEvents, AnEndOfAScopeBelowTheInnermostClosesItWithWhatItHoldsAndIsCounted) {
    const Decoded d = decode(
        {begin(kOuter, 0), begin(kMoved, 10), begin(kInner, 20), end(kMoved, 30), end(kInner, 40), end(kOuter, 100)});
    EXPECT_EQ(d.misnested, 2u);
    const TimerNode* outer = d.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, 1u);
    EXPECT_DOUBLE_EQ(outer->total, 100e-9);
    const TimerNode* moved = outer->find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 1u);
    EXPECT_DOUBLE_EQ(moved->total, 20e-9);
    const TimerNode* inner = moved->find("inner");
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(inner->count, 1u);
    EXPECT_DOUBLE_EQ(inner->total, 10e-9);
}

// An End of a scope that is not open at all is ignored: the open scope stays open and is closed
// by its own End with its own time.
TEST(MisnestedEvents, AnEndOfAScopeNotOpenIsIgnoredAndCounted) {
    const Decoded d = decode({begin(kOuter, 0), end(kNever, 5), begin(kInner, 10), end(kInner, 20), end(kOuter, 50)});
    EXPECT_EQ(d.misnested, 1u);
    const TimerNode* outer = d.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_DOUBLE_EQ(outer->total, 50e-9);
    ASSERT_NE(outer->find("inner"), nullptr);
    EXPECT_EQ(outer->find("inner")->count, 1u);
    EXPECT_EQ(d.tree.root.find("never_opened"), nullptr);
}

// A Begin whose End was lost leaves its scope open; the next End of a scope below it closes both,
// so what follows is at the right depth again.
TEST(MisnestedEvents, AScopeWhoseEndWasLostIsClosedByItsParentsEndAndLaterScopesKeepTheirDepth) {
    const Decoded d =
        decode({begin(kOuter, 0), begin(kInner, 10), end(kOuter, 30), begin(kOuter, 40), end(kOuter, 50)});
    EXPECT_EQ(d.misnested, 1u);
    const TimerNode* outer = d.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, 2u);
    EXPECT_EQ(outer->find("outer"), nullptr) << "the second outer is not nested in the first";
}

// Well-nested events and Ends of scopes begun before the session (nothing open) are not counted.
TEST(MisnestedEvents, NestedEventsAndEndsBeforeTheSessionAreNotCounted) {
    const Decoded d = decode({end(kMoved, 0), begin(kOuter, 5), begin(kInner, 10), end(kInner, 20), end(kOuter, 30)});
    EXPECT_EQ(d.misnested, 0u);
}

}  // namespace
}  // namespace ringprof
