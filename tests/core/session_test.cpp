// The whole pipeline from markers to the process tree, with exact counts.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "record/ring_registry.hpp"
#include "record/ring_room.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

using testing::scaled;
using testing::TempDir;

Config test_config(const TempDir& dir, std::size_t ring_bytes = std::size_t{1} << 20) {
    Config c;
    c.output_dir = dir.str();
    c.run_id = "test";
    c.ring_bytes = ring_bytes;
    c.backends = {"timers"};
    return c;
}

void inner_work() { PROF_SCOPE("inner"); }

void outer_work(int inner_calls) {
    PROF_SCOPE("outer");
    for (int i = 0; i < inner_calls; ++i) inner_work();
}

TEST(Session, CountsAreExactAcrossThreadsWhenNothingIsDropped) {
    TempDir dir;
    // Rings big enough that no scope can be refused even if the drainer never ran.
    Session session(test_config(dir, std::size_t{64} << 20));
    const long per_thread = scaled(1'000'000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (long i = 0; i < per_thread / 10; ++i) outer_work(9);
        });
    }
    for (auto& t : threads) t.join();
    const Snapshot s = session.snapshot();
    EXPECT_EQ(s.dropped, 0u);
    const TimerNode* outer = s.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, static_cast<std::uint64_t>(4 * (per_thread / 10)));
    EXPECT_TRUE(outer->is_parallel);
    const TimerNode* inner = outer->find("inner");
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(inner->count, static_cast<std::uint64_t>(4 * (per_thread / 10) * 9));
    EXPECT_TRUE(inner->is_parallel);
    EXPECT_EQ(s.tree.root.find("inner"), nullptr) << "nesting must be kept";
    EXPECT_LE(inner->total, outer->total);
}

TEST(Session, WithTheDropPolicyTinyRingsDropWholeScopesAndAccountForEveryOne) {
    TempDir dir;
    Config c = test_config(dir, 1024);  // 64 events per thread
    c.on_full = OnFull::Drop;
    Session session(c);
    const long per_thread = scaled(200'000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (long i = 0; i < per_thread / 4; ++i) outer_work(3);
        });
    }
    for (auto& t : threads) t.join();
    const Snapshot s = session.snapshot();
    const TimerNode* outer = s.tree.root.find("outer");
    const std::uint64_t issued = static_cast<std::uint64_t>(4 * (per_thread / 4) * 4);
    std::uint64_t recorded = 0;
    if (outer != nullptr) {
        recorded += outer->count;
        if (const TimerNode* inner = outer->find("inner")) recorded += inner->count;
    }
    EXPECT_GT(s.dropped, 0u) << "64-event rings should overflow";
    EXPECT_EQ(recorded + s.dropped, issued);
    // A refused outer takes its inner scopes with it: none may surface at the root.
    EXPECT_EQ(s.tree.root.find("inner"), nullptr);
}

TEST(Session, SingleThreadNodesAreNotParallel) {
    TempDir dir;
    Session session(test_config(dir));
    outer_work(2);
    const Snapshot s = session.snapshot();
    const TimerNode* outer = s.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_FALSE(outer->is_parallel);
    EXPECT_EQ(outer->count, 1u);
    EXPECT_EQ(outer->find("inner")->count, 2u);
}

TEST(Session, ScopeLeftByAnExceptionIsCountedOnce) {
    TempDir dir;
    Session session(test_config(dir));
    try {
        PROF_SCOPE("raises");
        throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {
    }
    { PROF_SCOPE("post_raise"); }
    const Snapshot s = session.snapshot();
    ASSERT_NE(s.tree.root.find("raises"), nullptr);
    EXPECT_EQ(s.tree.root.find("raises")->count, 1u);
    EXPECT_EQ(s.tree.root.find("post_raise")->count, 1u);
}

TEST(Session, DisabledAtRunTimeRecordsNothing) {
    TempDir dir;
    Session session(test_config(dir));
    disable();
    EXPECT_FALSE(is_enabled());
    outer_work(5);
    enable();
    EXPECT_TRUE(is_enabled());
    { PROF_SCOPE("after_enable"); }
    const Snapshot s = session.snapshot();
    EXPECT_EQ(s.tree.root.find("outer"), nullptr);
    ASSERT_NE(s.tree.root.find("after_enable"), nullptr);
}

TEST(Session, FlushWritesTimersJsonThatParsesBack) {
    TempDir dir;
    Session session(test_config(dir));
    for (int i = 0; i < 3; ++i) outer_work(4);
    session.flush();
    const TimerTree t = load_timers_json(dir.str() + "/test_timers.json");
    EXPECT_EQ(t.root.name, "root");
    EXPECT_EQ(t.root.count, 1u);
    ASSERT_NE(t.root.find_path("outer/inner"), nullptr);
    EXPECT_EQ(t.root.find_path("outer/inner")->count, 12u);
    EXPECT_EQ(t.root.find("outer")->count, 3u);
    ASSERT_NE(t.find_metadata("dropped_scopes"), nullptr);
    EXPECT_EQ(*t.find_metadata("dropped_scopes"), "0");
    EXPECT_EQ(t.find_metadata("command_line_arguments"), nullptr);
}

// The session's start hands its slow work to the drainer thread (measuring the marker's cost, the
// clock's first baseline, faulting the pool's segments in), so the thread starting it (often a
// marker's first call) does not wait for it. All of it still happens: the marker cost is in the
// outputs, and a thread recording from the first moment moves on from its first segment (1,024
// events) into a segment of the pool, stocked when the session started, without mapping its own.
TEST(Session, WorkItsStartHandsToTheDrainerStillReachesTheOutputs) {
    TempDir dir;
    detail::prepare_segments_ahead(false);  // an empty pool, whatever an earlier session left in it
    detail::prepare_segments_ahead(true);
    Session session(test_config(dir, std::size_t{16} << 20));  // the default: the pool's 4 MiB segments fit
    // Stocked by the start itself: the drainer's first pass, which would stock it too, comes only
    // after the clock's first baseline (milliseconds).
    EXPECT_GE(detail::hot_segments_ready(), detail::kBaseHotSegments) << "the session's start left the pool empty";
    constexpr int kScopes = 4000;
    std::thread([] {  // a fresh ring, in its first segment
        for (int i = 0; i < kScopes; ++i) inner_work();
    })
        .join();
    session.flush();
    const TimerTree t = load_timers_json(dir.str() + "/test_timers.json");
    ASSERT_NE(t.root.find("inner"), nullptr);
    EXPECT_EQ(t.root.find("inner")->count, static_cast<std::uint64_t>(kScopes));
    ASSERT_NE(t.find_metadata("marker_cost_ns"), nullptr);
    EXPECT_GT(std::stod(*t.find_metadata("marker_cost_ns")), 0.0) << "the marker cost was never measured";
    EXPECT_EQ(session.snapshot().growths, 0u) << "the pool was empty when the thread left its first segment";
}

TEST(Session, FinalSnapshotIsWrittenWhenTheSessionEnds) {
    TempDir dir;
    {
        Session session(test_config(dir));
        outer_work(1);
    }
    const TimerTree t = load_timers_json(dir.str() + "/test_timers.json");
    EXPECT_EQ(t.root.find("outer")->count, 1u);
}

TEST(Session, ShortLivedThreadsReuseRings) {
    TempDir dir;
    Session session(test_config(dir, 4096));
    const long rounds = scaled(2000);
    const std::uint64_t rings_before = detail::RingRegistry::instance().rings_allocated();
    for (long i = 0; i < rounds; ++i) {
        std::thread([] { outer_work(1); }).join();
        // join() returns after the thread retired its ring; a drain pass recycles it, so the
        // next thread must get it back instead of a new allocation.
        session.snapshot();
    }
    const Snapshot s = session.snapshot();
    const std::uint64_t rings_after = detail::RingRegistry::instance().rings_allocated();
    EXPECT_LE(rings_after - rings_before, 1u) << "exited threads' rings must be recycled";
    ASSERT_NE(s.tree.root.find("outer"), nullptr);
    EXPECT_EQ(s.tree.root.find("outer")->count, static_cast<std::uint64_t>(rounds));
    EXPECT_TRUE(s.tree.root.find("outer")->is_parallel);
    // The first 64 exited threads keep an entry each (their per-thread views), the rest share one.
    EXPECT_LE(s.threads.size(), 66u) << "exited threads beyond the first 64 are folded, not kept one by one";
}

TEST(Session, UnwritableOutputFolderIsReportedAndRecordingGoesOn) {
    TempDir dir;
    const std::string blocker = dir.str() + "/a_file";
    { std::ofstream(blocker) << "x"; }
    Config c = test_config(dir);
    c.output_dir = blocker + "/sub";
    ::testing::internal::CaptureStderr();
    {
        Session session(c);
        outer_work(1);
        session.flush();
        EXPECT_EQ(session.snapshot().tree.root.find("outer")->count, 1u);
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(blocker), std::string::npos) << err;
    EXPECT_NE(err.find("cannot"), std::string::npos) << err;
}

TEST(Session, DropCountsArePerThreadAndInTheOutputs) {
    TempDir dir;
    Config c = test_config(dir, 1024);
    c.on_full = OnFull::Drop;
    Session session(c);
    std::atomic<bool> flooded{false}, release{false};
    std::thread flooder([&] {
        set_thread_name("flooder");
        for (int i = 0; i < 10000; ++i) outer_work(8);
        flooded = true;
        while (!release) std::this_thread::yield();  // stay alive: live threads are listed by name
    });
    while (!flooded) std::this_thread::yield();
    std::uint64_t flooder_drops = 0;
    for (const ThreadInfo& t : thread_drops()) {
        if (t.name == "flooder") flooder_drops = t.dropped;
    }
    EXPECT_GT(flooder_drops, 0u);
    EXPECT_GE(dropped_scopes(), flooder_drops);
    session.flush();
    release = true;
    flooder.join();
    const TimerTree t = load_timers_json(dir.str() + "/test_timers.json");
    ASSERT_NE(t.find_metadata("dropped_scopes"), nullptr);
    EXPECT_EQ(std::stoull(*t.find_metadata("dropped_scopes")), flooder_drops);
}

}  // namespace
}  // namespace ringprof
