// The SPSC ring on its own: ordering under a concurrent consumer, and whole-scope admission.
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "ringprof/detail/ring.hpp"
#include "temp_dir.hpp"

namespace ringprof::detail {
namespace {

struct OwnedRing {
    explicit OwnedRing(std::uint64_t capacity) : slots(new Event[capacity]()), ring(slots.get(), capacity) {}
    std::unique_ptr<Event[]> slots;
    Ring ring;
};

TEST(Ring, ConsumerSeesEveryEventInOrderWhileProducerRuns) {
    OwnedRing r(1024);
    const std::uint64_t n = static_cast<std::uint64_t>(testing::scaled(2'000'000));
    std::thread producer([&] {
        std::uint64_t written = 0;
        while (written < n) {
            Event e{written, written << 4};
            if (r.ring.try_write(&e, 1)) ++written;
        }
    });
    std::uint64_t expected = 0;
    bool in_order = true;
    while (expected < n) {
        const std::uint64_t tail = r.ring.tail();
        const std::uint64_t head = r.ring.readable_head();
        for (std::uint64_t i = tail; i < head; ++i) {
            in_order = in_order && r.ring.at(i).tsc == expected && r.ring.at(i).tag == (expected << 4);
            ++expected;
        }
        r.ring.release(head);
    }
    producer.join();
    EXPECT_TRUE(in_order);
    EXPECT_EQ(expected, n);
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
    r.ring.release(r.ring.readable_head());  // the drainer frees room
    EXPECT_FALSE(r.ring.try_begin(make_tag(std::uint64_t{4}, EventKind::Begin)));  // child of refused
    r.ring.end_refused();
    r.ring.end_refused();
    EXPECT_TRUE(r.ring.try_begin(make_tag(std::uint64_t{5}, EventKind::Begin)));  // a sibling again
    EXPECT_EQ(r.ring.dropped(), 2u);
}

}  // namespace
}  // namespace ringprof::detail
