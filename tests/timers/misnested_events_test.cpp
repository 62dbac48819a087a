// Events that do not nest (an End from a scope ended on another thread, an End lost to a marker
// in a signal handler) are found where they are decoded: counted, never charged to a scope they
// do not close, and the thread's nesting is whole again at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "drain/aggregator.hpp"
#include "drain/clock_calibration.hpp"
#include "record/thread_ring.hpp"
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

Event detach(const Site& s, std::uint64_t t) { return {t, make_tag(&s, EventKind::Detach)}; }

// Interleaved `with` blocks of two asyncio tasks: task 1 opens `moved`, task 2 opens `inner`, task
// 1 leaves `moved` first (Detach). `moved` is charged where it was opened, with its own time, and
// `inner` and every later scope nest where they ran: under `outer`, never under `moved`.
TEST(MisnestedEvents, ADetachedScopeIsChargedWhereItOpenedAndTheScopesAboveItMoveUpALevel) {
    const Decoded d = decode({begin(kOuter, 0), begin(kMoved, 10), begin(kInner, 20), detach(kMoved, 30),
                              end(kInner, 40), begin(kNever, 50), end(kNever, 60), end(kOuter, 100)});
    EXPECT_EQ(d.misnested, 1u);
    const TimerNode* outer = d.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, 1u);
    EXPECT_DOUBLE_EQ(outer->total, 100e-9);
    const TimerNode* moved = outer->find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 1u);
    EXPECT_DOUBLE_EQ(moved->total, 20e-9);
    EXPECT_TRUE(moved->children.empty()) << "nothing was charged below the detached scope";
    const TimerNode* inner = outer->find("inner");
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(inner->count, 1u);
    EXPECT_DOUBLE_EQ(inner->total, 20e-9);
    ASSERT_NE(outer->find("never_opened"), nullptr);
    EXPECT_EQ(outer->find("never_opened")->count, 1u);
}

// A Detach of a scope that is not open (refused when it began) changes nothing.
TEST(MisnestedEvents, ADetachOfAScopeNotOpenIsIgnored) {
    const Decoded d = decode({begin(kOuter, 0), detach(kMoved, 5), begin(kInner, 10), end(kInner, 20), end(kOuter, 50)});
    EXPECT_EQ(d.misnested, 0u);
    const TimerNode* outer = d.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    ASSERT_NE(outer->find("inner"), nullptr);
    EXPECT_DOUBLE_EQ(outer->total, 50e-9);
}

// What the marker does on `ender` when it ends a scope `s` that `opener` opened: counts it on the
// opener's ring and writes an EndElsewhere note into its own.
void end_elsewhere(ThreadRing& ender, ThreadRing& opener, const Site& s, std::uint64_t t) {
    opener.ring().end_elsewhere();
    const Event note[2] = {{t, make_tag(&opener.ring(), EventKind::EndElsewhere)}, {make_tag(&s, EventKind::End), 0}};
    ASSERT_TRUE(ender.ring().try_write(note, 2));
}

// Two threads' rings: the opener's, whose scopes `moved` a coroutine opened and another thread
// ended (the marker there writes EndElsewhere into its own ring), and the ender's.
struct TwoThreads {
    ThreadRing opener{256};
    ThreadRing ender{256};
    ClockCalibration clock{+[]() -> std::uint64_t { return 0; }, 1e-9};
    Aggregator aggregator{clock};
    ThreadTrack opener_track{&opener};
    ThreadTrack ender_track{&ender};
    std::uint64_t opener_read = 0;
    std::uint64_t ender_read = 0;

    void opener_writes(const std::vector<Event>& events) {
        ASSERT_TRUE(opener.ring().try_write(events.data(), events.size()));
    }
    void ender_ends(const Site& s, std::uint64_t t) { end_elsewhere(ender, opener, s, t); }
    void drain_opener() {
        const std::uint64_t head = opener.ring().readable_head();
        opener_read = aggregator.decode(opener_track, opener_read, head, nullptr);
    }
    void drain_ender() {
        const std::uint64_t head = ender.ring().readable_head();
        ender_read = aggregator.decode(ender_track, ender_read, head, nullptr);
    }
};

// A coroutine opens `moved` on the opener and waits; the opener goes on (`outer`), opens the next
// coroutine's `moved`; the ender resumes the first and ends it at 25, the second at 55. Read in
// either order, each `moved` is closed at its own end, at the root where it opened: none nests
// under another, and the opener's own scopes are at the root, where they ran.
void expect_closed_where_opened(TwoThreads& t) {
    const TimerNode tree = t.aggregator.thread_tree(t.opener_track);
    const TimerNode* moved = tree.find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 2u);
    EXPECT_DOUBLE_EQ(moved->total, (25.0 + 25.0) * 1e-9);
    EXPECT_EQ(moved->find("moved"), nullptr) << "a waiting coroutine's scope held the next one";
    // The opener's own `outer` ran while a `moved` waited: both at the root, where they ran.
    EXPECT_TRUE(moved->children.empty());
    const TimerNode* own = tree.find("outer");
    ASSERT_NE(own, nullptr);
    EXPECT_EQ(own->count, 2u);
    const TimerNode* after = tree.find("inner");
    ASSERT_NE(after, nullptr) << "the opener's scope after the last end is at the root";
    EXPECT_EQ(after->count, 1u);
    EXPECT_EQ(t.aggregator.misnested(), 2u);
}

const std::vector<Event> kOpenerEvents = {begin(kMoved, 0),  begin(kOuter, 10), end(kOuter, 20),
                                          begin(kMoved, 30), begin(kOuter, 40), end(kOuter, 50),
                                          begin(kInner, 60), end(kInner, 70)};

TEST(MisnestedEvents, AScopeEndedByAnotherThreadIsClosedInItsOpenersNestingAtItsEnd) {
    TwoThreads t;
    t.opener_writes(kOpenerEvents);
    t.ender_ends(kMoved, 25);
    t.ender_ends(kMoved, 55);
    t.drain_ender();
    t.drain_opener();
    expect_closed_where_opened(t);
}

// The ender's ring is read after the opener's first events: the second `moved`, opened while the
// first waited elsewhere, is found inside it and moves up to the root when the first end is read.
TEST(MisnestedEvents, AnEndElsewhereReadAfterItsOpenersLaterEventsStillClosesItWhereItOpened) {
    TwoThreads t;
    t.opener_writes({kOpenerEvents.begin(), kOpenerEvents.begin() + 4});
    t.drain_opener();
    t.ender_ends(kMoved, 25);
    t.ender_ends(kMoved, 55);
    t.drain_ender();
    t.opener_writes({kOpenerEvents.begin() + 4, kOpenerEvents.end()});
    t.drain_opener();
    expect_closed_where_opened(t);
}

// A thread that opened a scope and was read to its end (it exited) gets the end made elsewhere
// when it is retired: the scope is counted with its time, not lost.
TEST(MisnestedEvents, AScopeEndedElsewhereAfterItsOpenersLastEventIsClosedWhenTheOpenerIsRetired) {
    TwoThreads t;
    t.opener_writes({begin(kMoved, 0)});
    t.drain_opener();
    t.ender_ends(kMoved, 40);
    t.drain_ender();
    t.aggregator.retire(t.opener_track);
    Snapshot s;
    t.aggregator.fill(s, {});
    const TimerNode* moved = s.tree.root.find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 1u);
    EXPECT_DOUBLE_EQ(moved->total, 40e-9);
}

// Two coroutines of one site wait at once, the second opened inside the first: the earlier end
// closes the one that began first, and neither is charged below the other.
TEST(MisnestedEvents, TwoScopesOfOneSiteEndedElsewhereCloseInTheOrderTheyBegan) {
    TwoThreads t;
    t.ender_ends(kMoved, 20);
    t.ender_ends(kMoved, 30);
    t.drain_ender();
    t.opener_writes({begin(kMoved, 0), begin(kMoved, 10), begin(kInner, 40), end(kInner, 50)});
    t.drain_opener();
    const TimerNode tree = t.aggregator.thread_tree(t.opener_track);
    const TimerNode* moved = tree.find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 2u);
    EXPECT_DOUBLE_EQ(moved->total, 40e-9);
    EXPECT_EQ(moved->find("moved"), nullptr);
    ASSERT_NE(tree.find("inner"), nullptr);
}

// The drainer first sees a thread's ring at its next pass, and by then another thread may have
// ended scopes of it: their notes are still to be read, in that thread's ring. An exited thread's
// track goes once every note of its scopes is read (Drainer::pass), so those count too: read
// after the track went, they would be lost with the scopes they close.
TEST(MisnestedEvents, ATrackFirstSeenAfterScopesOfItEndedElsewhereWaitsForThoseEndsToBeRead) {
    ThreadRing opener{256};
    ThreadRing ender{256};
    const Event opened[4] = {begin(kMoved, 0), begin(kMoved, 10), begin(kInner, 40), end(kInner, 50)};
    ASSERT_TRUE(opener.ring().try_write(opened, 4));
    end_elsewhere(ender, opener, kMoved, 20);
    end_elsewhere(ender, opener, kMoved, 30);
    ClockCalibration clock{+[]() -> std::uint64_t { return 0; }, 1e-9};
    Aggregator aggregator{clock};
    ThreadTrack opener_track{&opener};
    ThreadTrack ender_track{&ender};
    aggregator.decode(opener_track, 0, opener.ring().readable_head(), nullptr);
    EXPECT_FALSE(opener_track.every_note_read()) << "both ends are still unread in the ender's ring";
    aggregator.decode(ender_track, 0, ender.ring().readable_head(), nullptr);
    aggregator.settle_closed_elsewhere({&opener_track, &ender_track});
    EXPECT_TRUE(opener_track.every_note_read());
    const TimerNode tree = aggregator.thread_tree(opener_track);
    const TimerNode* moved = tree.find("moved");
    ASSERT_NE(moved, nullptr);
    EXPECT_EQ(moved->count, 2u);
}

// Well-nested events and Ends of scopes begun before the session (nothing open) are not counted.
TEST(MisnestedEvents, NestedEventsAndEndsBeforeTheSessionAreNotCounted) {
    const Decoded d = decode({end(kMoved, 0), begin(kOuter, 5), begin(kInner, 10), end(kInner, 20), end(kOuter, 30)});
    EXPECT_EQ(d.misnested, 0u);
}

}  // namespace
}  // namespace ringprof
