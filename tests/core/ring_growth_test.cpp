// A ring grows without its thread ever waiting for the drainer: a pool of threads that start
// together and record from their first microsecond fills its first segments at once, more of
// them than the drainer keeps ready, and every scope is kept with no wait. A thread waits only
// when its ring has reached RINGPROF_RING_BYTES.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "blocking_backend.hpp"
#include "record/ring_room.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

using testing::BlockingBackend;
using testing::scaled;
using testing::TempDir;
using testing::timers_only;

// Two processes spinning on both cores for as long as the object lives.
class BusyLoops {
public:
    BusyLoops() {
        for (pid_t& pid : pids_) {
            pid = ::fork();
            if (pid == 0) {
                ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test killed at its timeout leaves no spinner
                for (volatile std::uint64_t i = 0;; i = i + 1) {
                }
            }
        }
    }
    ~BusyLoops() {
        for (pid_t pid : pids_) {
            if (pid <= 0) continue;
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
    BusyLoops(const BusyLoops&) = delete;
    BusyLoops& operator=(const BusyLoops&) = delete;

private:
    pid_t pids_[2] = {-1, -1};
};

// Count of the nodes named `name` anywhere below `node`.
std::uint64_t count_named(const TimerNode& node, const std::string& name) {
    std::uint64_t n = node.name == name ? node.count : 0;
    for (const TimerNode& child : node.children) n += count_named(child, name);
    return n;
}

unsigned pool_size() { return 3 * std::max(1u, std::thread::hardware_concurrency()); }

// One pool: every thread starts at once and records `pairs` outer scopes with an inner one each.
void run_pool(unsigned threads, long pairs) {
    std::atomic<unsigned> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            ready.fetch_add(1);
            // Yielding: spinners that never give their core up can keep the thread that says go
            // (and, under ctest -j, other tests' processes) off the cores for a long time.
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            for (long i = 0; i < pairs; ++i) {
                PROF_SCOPE("outer");
                PROF_SCOPE("inner");
            }
        });
    }
    while (ready.load() < threads) std::this_thread::yield();
    go.store(true, std::memory_order_release);
    for (auto& t : pool) t.join();
}

struct RunResult {
    std::uint64_t outer = 0, inner = 0, dropped = 0, waits = 0;
};

// A session in which two pools, one after the other, each outgrow their first segments.
RunResult run_two_pools(const TempDir& dir, long pairs) {
    Session session(timers_only(dir));
    run_pool(pool_size(), pairs);
    run_pool(pool_size(), pairs);
    const Snapshot s = session.snapshot();
    RunResult r;
    if (const TimerNode* outer = s.tree.root.find("outer")) {
        r.outer = outer->count;
        if (const TimerNode* inner = outer->find("inner")) r.inner = inner->count;
    }
    r.dropped = s.dropped;
    r.waits = s.waits;
    return r;
}

void expect_twenty_runs_exact_without_a_wait() {
    // 5,000 pairs are 20,000 events a thread: 20 times the first segment.
    const long pairs = scaled(5'000);
    const std::uint64_t expected = 2ull * pool_size() * static_cast<std::uint64_t>(pairs);
    const int runs = testing::kSanitized ? 4 : 20;
    for (int run = 0; run < runs; ++run) {
        TempDir dir;
        const RunResult r = run_two_pools(dir, pairs);
        ASSERT_EQ(r.outer, expected) << "run " << run;
        ASSERT_EQ(r.inner, expected) << "run " << run;
        ASSERT_EQ(r.dropped, 0u) << "run " << run;
        ASSERT_EQ(r.waits, 0u) << "run " << run << ": a thread waited for the drainer to grow its ring";
    }
}

TEST(RingGrowth, APoolOfThreeTimesTheCoresStartingTogetherIsExactWithoutAWaitInTwentyRuns) {
    expect_twenty_runs_exact_without_a_wait();
}

TEST(RingGrowth, APoolOfThreeTimesTheCoresStartingTogetherIsExactWithoutAWaitWhileTwoBusyLoopsHoldTheCores) {
    BusyLoops load;
    expect_twenty_runs_exact_without_a_wait();
}

// With no segment prepared by the drainer, the thread maps its next segment itself: counted per
// thread, visible as a `ringprof.grow` scope where it happened, and nothing lost or waited for.
// The drainer is held in a backend meanwhile, so it neither reads nor prepares: a slow build (a
// sanitizer's) would otherwise let it keep up and the ring would never fill.
TEST(RingGrowth, AThreadWhoseNextSegmentIsNotReadyGrowsItsOwnRingCountedAndVisible) {
    TempDir dir;
    detail::prepare_segments_ahead(false);
    Session session(timers_only(dir));
    auto backend = std::make_unique<BlockingBackend>();
    BlockingBackend* blocking = backend.get();
    session.add_backend(std::move(backend));
    std::thread held_flush([&] { session.flush(); });
    blocking->wait_until_entered();
    const long pairs = scaled(20'000);  // 80,000 events: past the first segment and the second
    std::uint32_t tid = 0;
    std::thread hot([&] {
        tid = static_cast<std::uint32_t>(::gettid());
        PROF_SCOPE("hot");
        for (long i = 0; i < pairs; ++i) {
            PROF_SCOPE("outer");
            PROF_SCOPE("inner");
        }
    });
    hot.join();
    blocking->released = true;
    held_flush.join();
    const Snapshot s = session.snapshot();
    detail::prepare_segments_ahead(true);
    const TimerNode* outer = s.tree.root.find("hot") ? s.tree.root.find("hot")->find("outer") : nullptr;
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, static_cast<std::uint64_t>(pairs));
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_EQ(s.waits, 0u);
    ASSERT_GE(s.growths, 1u) << "the thread grew its ring itself";
    // Where it happened: inside the thread's open scopes, in the middle of the loop.
    EXPECT_EQ(s.tree.root.find("ringprof.grow"), nullptr);
    EXPECT_EQ(count_named(*s.tree.root.find("hot"), "ringprof.grow"), s.growths)
        << "the growth shows where it happened";
    const ThreadInfo* info = nullptr;
    for (const ThreadInfo& t : s.threads) {
        if (t.tid == tid) info = &t;
    }
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->growths, s.growths);
    EXPECT_GT(info->growth_ns, 0u);

    session.flush();
    const TimerTree saved = load_timers_json(dir.str() + "/test_timers.json");
    ASSERT_NE(saved.find_metadata("ring_growths"), nullptr);
    EXPECT_EQ(std::stoull(*saved.find_metadata("ring_growths")), s.growths);
    ASSERT_NE(saved.find_metadata("ring_growths_by_thread"), nullptr);  // tid:growths:ns
    EXPECT_EQ(saved.find_metadata("ring_growths_by_thread")
                  ->rfind(std::to_string(tid) + ":" + std::to_string(s.growths) + ":", 0),
              0u)
        << *saved.find_metadata("ring_growths_by_thread");
}

// Below RINGPROF_RING_BYTES a full ring grows; at it, the thread waits for the drainer (the
// default policy), and every scope is kept. The drainer is held until the thread has filled most
// of its grown ring, so the wait happens whatever the build's speed; it is released well within
// the second after which a waiter takes the drainer for stalled.
TEST(RingGrowth, AThreadWaitsOnlyOnceItsRingHasReachedTheConfiguredMaximum) {
    TempDir dir;
    detail::prepare_segments_ahead(false);
    Config c = timers_only(dir);
    c.ring_bytes = 64 << 10;  // 4,096 events: the first segment and one growth
    Session session(c);
    auto backend = std::make_unique<BlockingBackend>();
    BlockingBackend* blocking = backend.get();
    session.add_backend(std::move(backend));
    std::thread held_flush([&] { session.flush(); });
    blocking->wait_until_entered();
    const long pairs = 4 * 4096;
    const long nearly_full = 800;  // 3,200 events: past the first segment, short of 4,096 slots
    std::atomic<bool> nearly_full_reached{false};
    std::thread hot([&] {
        for (long i = 0; i < pairs; ++i) {
            if (i == nearly_full) nearly_full_reached = true;
            PROF_SCOPE("outer");
            PROF_SCOPE("inner");
        }
    });
    while (!nearly_full_reached.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    blocking->released = true;
    hot.join();
    held_flush.join();
    const Snapshot s = session.snapshot();
    detail::prepare_segments_ahead(true);
    ASSERT_NE(s.tree.root.find("outer"), nullptr);
    EXPECT_EQ(s.tree.root.find("outer")->count, static_cast<std::uint64_t>(pairs));
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_EQ(s.growths, 1u) << "16 KiB -> 64 KiB, then no further";
    EXPECT_GT(s.waits, 0u) << "the ring at its maximum, with the drainer held, can only wait";
}

}  // namespace
}  // namespace ringprof
