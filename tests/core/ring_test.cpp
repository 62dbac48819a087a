// The SPSC ring on its own: ordering under a concurrent consumer, and whole-scope admission.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "record/ring_room.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/detail/ring.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof::detail {
namespace {

struct OwnedRing {
    explicit OwnedRing(std::uint64_t capacity) : slots(new Event[capacity]()), ring(slots.get(), capacity) {}
    std::unique_ptr<Event[]> slots;
    Ring ring;
};

// How long a producer and a consumer run against each other: `n` units on an idle machine. On a
// loaded one the two sides may share a core, and each yield of a side that cannot move may hand
// the core to another process for a whole time slice: a lap of a tiny ring then costs
// milliseconds, and 2 million events took over 5 minutes. So past a time budget the pair stops
// once it has done `floor` units, counted in laps of the ring (each lap costs a switch at most).
class RunLength {
public:
    RunLength(std::uint64_t n, std::uint64_t floor) : n_(n), floor_(std::min(n, floor)) {}
    bool enough(std::uint64_t done) const {
        return done >= n_ || (done >= floor_ && std::chrono::steady_clock::now() >= deadline_);
    }

private:
    std::uint64_t n_, floor_;
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(20);
};

// Laps of the ring every run makes, however loaded the machine.
constexpr std::uint64_t kLapsAtLeast = 2000;

// The head is a lap plus the cursor's offset, stored apart: read torn across a wrap, it must only
// ever fall behind. A ring of 4 slots wraps every 4 events, so a head read a lap too high would
// hand the consumer stale slots (out of order here) within a few thousand wraps. A side that cannot
// move yields, as the two threads may share one core.
void expect_every_event_in_order(std::uint64_t capacity) {
    OwnedRing r(capacity);
    const RunLength length(static_cast<std::uint64_t>(testing::scaled(2'000'000)), kLapsAtLeast * capacity);
    std::atomic<bool> stop{false};
    std::uint64_t written = 0;
    std::thread producer([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            Event e{written, written << 4};
            if (r.ring.try_write(&e, 1))
                ++written;
            else
                std::this_thread::yield();
        }
    });
    std::uint64_t expected = 0;
    bool in_order = true;
    const auto read = [&] {
        const std::uint64_t tail = r.ring.tail();
        const std::uint64_t head = r.ring.readable_head();
        if (head == tail) std::this_thread::yield();
        for (std::uint64_t i = tail; i < head; ++i) {
            in_order = in_order && r.ring.at(i).tsc == expected && r.ring.at(i).tag == (expected << 4);
            ++expected;
        }
        r.ring.release(head);
    };
    while (!length.enough(expected)) read();
    stop.store(true, std::memory_order_relaxed);
    producer.join();
    read();  // what the producer wrote before it saw the stop
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, written);
}

TEST(Ring, ConsumerSeesEveryEventInOrderWhileProducerRuns) { expect_every_event_in_order(1024); }

TEST(Ring, ConsumerSeesEveryEventInOrderWhileProducerWrapsATinyRingConstantly) { expect_every_event_in_order(4); }

// The consumer reads a record's later events once it sees its first (a signature, a step), so a
// record is published whole: the readable head is always at a record's boundary.
TEST(Ring, AMultiEventRecordIsPublishedWholeWhileTheConsumerReads) {
    constexpr std::uint64_t kCapacity = 16, kRecord = 3;
    OwnedRing r(kCapacity);
    const RunLength length(static_cast<std::uint64_t>(testing::scaled(600'000)), kLapsAtLeast * (kCapacity / kRecord));
    std::atomic<bool> stop{false};
    std::uint64_t written = 0;
    std::thread producer([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            const Event record[kRecord] = {{written, 1}, {written, 2}, {written, 3}};
            if (r.ring.try_write(record, kRecord))
                ++written;
            else
                std::this_thread::yield();  // as above: the two sides may share a core
        }
    });
    std::uint64_t records = 0, split = 0;
    bool whole = true;
    const auto read = [&] {
        const std::uint64_t tail = r.ring.tail();
        const std::uint64_t head = r.ring.readable_head();
        if ((head - tail) % kRecord != 0) ++split;
        if (head == tail) std::this_thread::yield();
        for (std::uint64_t i = tail; i + kRecord <= head; i += kRecord) {
            for (std::uint64_t k = 0; k < kRecord; ++k) {
                whole = whole && r.ring.at(i + k).tsc == records && r.ring.at(i + k).tag == k + 1;
            }
            ++records;
        }
        r.ring.release(tail + (head - tail) / kRecord * kRecord);
    };
    while (!length.enough(records)) read();
    stop.store(true, std::memory_order_relaxed);
    producer.join();
    read();  // what the producer wrote before it saw the stop
    EXPECT_EQ(split, 0u) << "the head stopped inside a record";
    EXPECT_TRUE(whole);
    EXPECT_EQ(records, written);
}

// The markers test only a ring's room inline, so a thread without a ring must point at one that
// never has any: its first marker then takes the slow path, which gives it a ring of its own.
TEST(Ring, AThreadWithoutARingPointsAtASentinelThatNeverHasRoomAndIsNeverWritten) {
    testing::TempDir dir;
    Session session(testing::timers_only(dir));
    bool before_first = false, after_first = false;
    std::thread t([&] {
        before_first = t_ring == no_ring();
        { PROF_SCOPE("first"); }
        after_first = t_ring != no_ring() && t_ring->has_room(2);
    });
    t.join();
    EXPECT_TRUE(before_first);
    EXPECT_TRUE(after_first);
    EXPECT_FALSE(no_ring()->has_room(1));
    EXPECT_EQ(no_ring()->open_scopes(), 0u);
    EXPECT_EQ(no_ring()->dropped(), 0u);
    const Snapshot snapshot = session.snapshot();
    const TimerNode* first = snapshot.tree.root.find("first");
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(first->count, 1u);
}

TEST(Ring, BeginIsRefusedUnlessItsEndAndEveryOpenEndFit) {
    OwnedRing r(8);
    // Each admitted begin needs room for itself, its end and the ends of open scopes.
    int admitted = 0;
    while (r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin))) ++admitted;
    EXPECT_EQ(admitted, 4);  // 4 begins + 4 reserved ends = 8 slots
    EXPECT_EQ(r.ring.dropped(), 1u);
    r.ring.end_refused();
    for (int i = 0; i < admitted; ++i) r.ring.end(make_tag(std::uint64_t{1}, EventKind::End), 0);
    EXPECT_EQ(r.ring.readable_head(), 8u);
    EXPECT_EQ(r.ring.open_scopes(), 0u);
}

TEST(Ring, ScopesNestedInARefusedScopeAreRefusedEvenAfterRoomIsFreed) {
    OwnedRing r(4);
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)));
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{2}, EventKind::Begin)));
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{3}, EventKind::Begin)));  // full
    r.ring.release(r.ring.readable_head());                                        // the drainer frees room
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{4}, EventKind::Begin)));  // child of refused
    r.ring.end_refused();
    r.ring.end_refused();
    EXPECT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{5}, EventKind::Begin)));  // a sibling again
    EXPECT_EQ(r.ring.dropped(), 2u);
}

// A record written beside a refused scope (a gauge in it) takes the room path, which must not
// reopen admission for the refused scope's children.
TEST(Ring, ARecordWrittenInsideARefusedScopeKeepsItsChildrenRefused) {
    OwnedRing r(8);
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)));
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{2}, EventKind::Begin)));
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{3}, EventKind::Begin)));
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{4}, EventKind::Begin)));
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{5}, EventKind::Begin)));  // full
    r.ring.release(r.ring.readable_head());                                        // the drainer frees room
    const Event gauge{0, make_tag(std::uint64_t{6}, EventKind::Gauge)};
    EXPECT_TRUE(r.ring.try_write(&gauge, 1));                                      // room again: the record itself fits
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{7}, EventKind::Begin)));  // child of refused
    const Event step[2] = {{0, make_tag(std::uint64_t{0}, EventKind::StepBegin)}, {1, 0}};
    EXPECT_FALSE(r.ring.try_open(step, 2));  // so is a scope-like record
    r.ring.end_refused();
    r.ring.end_refused();
    r.ring.end_refused();
    EXPECT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{8}, EventKind::Begin)));  // a sibling again
    EXPECT_EQ(r.ring.dropped(), 3u);
    EXPECT_EQ(r.ring.open_scopes(), 5u);
}

// A coroutine resumed on another thread ends there the scope it opened here: its End never
// comes to this ring. The room this ring kept for that End must come back, or every such scope
// shrinks the ring for good until each Begin is refused (3 million hand-overs: 3.9 million scopes
// dropped on a ring of 1 million events).
TEST(Ring, ScopesEndedElsewhereGiveBackTheRoomKeptForTheirEnds) {
    OwnedRing r(8);
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin))) << "hand-over " << i;
        r.ring.end_elsewhere();
        r.ring.release(r.ring.readable_head());  // the drainer reads the Begin
    }
    EXPECT_EQ(r.ring.dropped(), 0u);
    EXPECT_EQ(r.ring.closings_outstanding(), 0u);
}

// A scope the ring refused and another thread ended: this thread's later scopes are its
// siblings, not children of a refused scope that stays open for good.
TEST(Ring, ARefusedScopeEndedElsewhereStopsRefusingThisThreadsScopes) {
    OwnedRing r(4);
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)));
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{2}, EventKind::Begin)));
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{3}, EventKind::Begin)));  // full: refused
    r.ring.end_refused_elsewhere();                                                // ended on another thread
    r.ring.end(make_tag(std::uint64_t{2}, EventKind::End), 0);
    r.ring.end(make_tag(std::uint64_t{1}, EventKind::End), 0);
    r.ring.release(r.ring.readable_head());
    EXPECT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{4}, EventKind::Begin)));
    EXPECT_EQ(r.ring.dropped(), 1u);
    EXPECT_EQ(r.ring.closings_outstanding(), 1u);  // the scope just begun
}

// The drainer lets an exited thread go only once it has read every note of an end made
// elsewhere: the ring counts the notes written for it, less those the ending thread's own ring
// refused, and ends of refused scopes (which write none).
TEST(Ring, NotesWrittenElsewhereCountTheEndsOfAdmittedScopesWhoseNoteWasKept) {
    OwnedRing r(16);
    r.ring.end_elsewhere();
    r.ring.end_elsewhere();
    r.ring.end_elsewhere();
    r.ring.note_lost();
    r.ring.end_refused_elsewhere();
    EXPECT_EQ(r.ring.notes_written_elsewhere(), 2u);
    EXPECT_EQ(r.ring.ends_made_elsewhere(), 4u);
}

// While another thread may still end one of its scopes, a ring must outlive its thread unused:
// the closer touches it.
TEST(Ring, ClosingsOutstandingCountsScopesAnotherThreadMayStillEnd) {
    OwnedRing r(16);
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)));  // handed over
    ASSERT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{2}, EventKind::Begin)));
    r.ring.end(make_tag(std::uint64_t{2}, EventKind::End), 0);
    EXPECT_EQ(r.ring.closings_outstanding(), 1u);
    r.ring.end_elsewhere();
    EXPECT_EQ(r.ring.closings_outstanding(), 0u);
}

// ---- admission at capacity - 1, capacity and capacity + 1, for every record kind ----

// A record kind as markers write it: `events` in the record, `closing` 1 if one later end()
// closes it (so its End is reserved too), and how the marker offers it to the ring.
struct RecordKind {
    const char* name;
    std::uint64_t events;
    std::uint64_t closing;
    std::function<bool(Ring&)> offer;
};

std::vector<RecordKind> record_kinds() {
    auto open = [](std::uint64_t n) {
        return [n](Ring& r) {
            std::vector<Event> e(n, Event{0, make_tag(std::uint64_t{1}, EventKind::Payload)});
            return r.try_open(e.data(), n);
        };
    };
    auto write = [](std::uint64_t n) {
        return [n](Ring& r) {
            std::vector<Event> e(n, Event{0, make_tag(std::uint64_t{1}, EventKind::Payload)});
            return r.try_write(e.data(), n);
        };
    };
    return {
        {"scope begin", 1, 1, [](Ring& r) { return r.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)); }},
        {"step (try_open, 2 events)", 2, 1, open(2)},
        {"adopt (try_open, 1 event)", 1, 1, open(1)},
        {"signature scope (try_open, 4 events)", 4, 1, open(4)},
        {"gauge (try_write, 2 events)", 2, 0, write(2)},
        {"context capture (try_write, 1 event)", 1, 0, write(1)},
    };
}

// A ring of 16 events with `open` scopes open and `free` slots left beside their reserved Ends.
std::unique_ptr<OwnedRing> ring_with_room(std::uint64_t open, std::uint64_t free) {
    auto r = std::make_unique<OwnedRing>(16);
    for (std::uint64_t i = 0; i < open; ++i)
        EXPECT_TRUE(r->ring.try_begin(make_tag(std::uint64_t{2}, EventKind::Begin)));
    const std::uint64_t filler = 16 - 2 * open - free;  // events already written and unread
    for (std::uint64_t i = 0; i < filler; ++i) {
        const Event e{i, make_tag(std::uint64_t{3}, EventKind::Payload)};
        EXPECT_TRUE(r->ring.try_write(&e, 1));
    }
    return r;
}

TEST(RingAdmission, EveryRecordKindIsRefusedOneShortOfItsRoomAndAdmittedAtAndAboveIt) {
    for (const RecordKind& kind : record_kinds()) {
        for (std::uint64_t open : {0u, 2u}) {
            const std::uint64_t room = kind.events + kind.closing;  // its events and its own End
            for (std::uint64_t free : {room - 1, room, room + 1}) {
                auto r = ring_with_room(open, free);
                const std::uint64_t head = r->ring.readable_head();
                const bool admitted = kind.offer(r->ring);
                const std::string where = std::string(kind.name) + ", open scopes " + std::to_string(open) + ", free " +
                                          std::to_string(free) + " (needs " + std::to_string(room) + ")";
                EXPECT_EQ(admitted, free >= room) << where;
                EXPECT_EQ(r->ring.dropped(), admitted ? 0u : 1u) << where;
                EXPECT_EQ(r->ring.readable_head(), admitted ? head + kind.events : head) << where;
                EXPECT_EQ(r->ring.open_scopes(), open + (admitted ? kind.closing : 0)) << where;
            }
        }
    }
}

TEST(RingAdmission, EveryScopeKindNestedInARefusedScopeIsRefusedEvenWithRoom) {
    for (const RecordKind& parent : record_kinds()) {
        if (parent.closing == 0) continue;
        for (const RecordKind& child : record_kinds()) {
            if (child.closing == 0) continue;
            auto r = ring_with_room(0, parent.events + parent.closing - 1);
            ASSERT_FALSE(parent.offer(r->ring)) << parent.name;
            r->ring.release(r->ring.readable_head());  // the drainer frees everything
            EXPECT_FALSE(child.offer(r->ring)) << child.name << " inside a refused " << parent.name;
            EXPECT_EQ(r->ring.dropped(), 2u);
            r->ring.end_refused();  // the child
            r->ring.end_refused();  // the parent
            EXPECT_TRUE(child.offer(r->ring)) << child.name << " after the refused scope closed";
        }
    }
}

TEST(RingAdmission, AOneOffRecordInsideARefusedScopeIsStillWrittenIfItFits) {
    // A gauge or capture is not a scope: nothing can surface under a wrong parent, so it is kept.
    for (const RecordKind& kind : record_kinds()) {
        if (kind.closing != 0) continue;
        auto r = ring_with_room(0, 1);
        ASSERT_FALSE(r->ring.try_begin(make_tag(std::uint64_t{1}, EventKind::Begin)));
        r->ring.release(r->ring.readable_head());
        EXPECT_TRUE(kind.offer(r->ring)) << kind.name;
        r->ring.end_refused();
    }
}

// The producer moves to bigger segments that the consumer hands it, while the consumer reads
// each segment to its end, follows the link and frees the old one: every event, in order.
TEST(Ring, GrowingThroughSegmentsLosesAndReordersNothingUnderAConcurrentConsumer) {
    RingSegment* first = allocate_segment(64);
    ASSERT_NE(first, nullptr);
    prepare_segments_ahead(false);  // only the segments offered here: none from the shared pool
    Ring ring(first, 1 << 14, free_segment);
    const std::uint64_t n = static_cast<std::uint64_t>(testing::scaled(2'000'000));
    std::thread producer([&] {
        std::uint64_t written = 0;
        while (written < n) {
            // Records of 1..3 events: a record never straddles two segments.
            const std::uint64_t len = 1 + written % 3 > n - written ? n - written : 1 + written % 3;
            Event e[3];
            for (std::uint64_t i = 0; i < len; ++i) e[i] = Event{written + i, (written + i) << 4};
            if (ring.try_write(e, len)) written += len;
        }
    });
    std::uint64_t expected = 0, offered = 0;
    bool in_order = true;
    std::uint64_t next_size = 128;
    while (expected < n) {
        do {
            const std::uint64_t tail = ring.tail(), head = ring.readable_head();
            for (std::uint64_t i = tail; i < head; ++i) {
                in_order = in_order && ring.at(i).tsc == expected && ring.at(i).tag == (expected << 4);
                ++expected;
            }
            ring.release(head);
        } while (ring.next_segment());
        if (next_size <= ring.max_capacity() && !ring.has_spare()) {
            if (ring.offer_segment(allocate_segment(next_size))) ++offered;
            next_size *= 2;
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // let the ring fill up
        }
    }
    producer.join();
    prepare_segments_ahead(true);
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, n);
    EXPECT_GE(offered, 2u);
    EXPECT_GT(ring.capacity(), 64u) << "the producer moved on to an offered segment";
}

// Nothing handed to it: the producer maps each bigger segment itself and records the growth
// (a `ringprof.grow` Begin and End) at the start of the new segment; the consumer still reads
// every event in order, and frees each segment it has left.
TEST(Ring, AProducerHandedNoSegmentGrowsItselfAndTheConsumerReadsEveryEventInOrder) {
    RingSegment* first = allocate_segment(64);
    ASSERT_NE(first, nullptr);
    prepare_segments_ahead(false);  // the shared pool empty: earlier sessions may have filled it
    Ring ring(first, 1 << 22, free_segment, allocate_segment_unfaulted);
    const std::uint64_t n = static_cast<std::uint64_t>(testing::scaled(2'000'000));
    std::atomic<std::uint64_t> progress{0};
    std::thread producer([&] {
        std::uint64_t written = 0;
        while (written < n) {
            const std::uint64_t len = 1 + written % 3 > n - written ? n - written : 1 + written % 3;
            Event e[3];
            for (std::uint64_t i = 0; i < len; ++i) e[i] = Event{written + i, (written + i) << 4};
            if (ring.try_write(e, len)) written += len;
            progress.store(written, std::memory_order_relaxed);
        }
    });
    // The consumer starts once the first segment (64 events) cannot hold what was written.
    while (progress.load(std::memory_order_relaxed) < std::min<std::uint64_t>(n, 1000)) std::this_thread::yield();
    const std::uint64_t grow_begin = make_tag(&growth_site(), EventKind::Begin);
    const std::uint64_t grow_end = make_tag(&growth_site(), EventKind::End);
    std::uint64_t expected = 0, grow_records = 0;
    bool in_order = true;
    while (expected < n) {
        do {
            const std::uint64_t tail = ring.tail(), head = ring.readable_head();
            for (std::uint64_t i = tail; i < head; ++i) {
                const Event& e = ring.at(i);
                if (e.tag == grow_begin && i + 1 < head && ring.at(i + 1).tag == grow_end) {
                    ++grow_records;
                    ++i;
                    continue;
                }
                in_order = in_order && e.tsc == expected && e.tag == (expected << 4);
                ++expected;
            }
            ring.release(head);
        } while (ring.next_segment());
    }
    producer.join();
    prepare_segments_ahead(true);
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, n);
    EXPECT_GE(ring.growths(), 1u);
    EXPECT_EQ(grow_records, ring.growths()) << "each growth is recorded where it happened";
    EXPECT_EQ(ring.waits(), 0u);
    EXPECT_EQ(ring.dropped(), 0u) << "below its maximum a ring grows; it is never full";
}

}  // namespace
}  // namespace ringprof::detail
