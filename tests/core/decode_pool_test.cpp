// The threads that decode shares of a drainer pass (drain/decode_pool.hpp), and a session whose
// rings four of them read while eight threads record flat out into small rings.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "drain/decode_pool.hpp"
#include "process/quiet_thread.hpp"
#include "ringprof/ringprof.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

using detail::DecodePool;

TEST(DecodePool, EveryShareRunsExactlyOnceInEachRunAndNoneAfterItReturns) {
    DecodePool pool;
    constexpr std::size_t kMaxShares = 6;
    std::vector<std::atomic<int>> runs(kMaxShares);
    std::atomic<int> inside{0};
    const int rounds = testing::kSanitized ? 2000 : 20000;
    for (int r = 0; r < rounds; ++r) {
        const std::size_t shares = 1 + static_cast<std::size_t>(r) % kMaxShares;
        for (auto& n : runs) n.store(0);
        pool.run(shares, [&](std::size_t k) {
            inside.fetch_add(1);
            runs[k].fetch_add(1);
            inside.fetch_sub(1);
        });
        ASSERT_EQ(inside.load(), 0) << "a share still ran after run() returned, round " << r;
        for (std::size_t k = 0; k < kMaxShares; ++k) {
            ASSERT_EQ(runs[k].load(), k < shares ? 1 : 0) << "share " << k << " of " << shares << ", round " << r;
        }
    }
    EXPECT_EQ(pool.helpers(), kMaxShares - 1);
}

TEST(DecodePool, SharesRunAtOnceOnSeveralThreads) {
    DecodePool pool;
    constexpr std::size_t kShares = 4;
    std::atomic<std::size_t> arrived{0};
    std::mutex mutex;
    std::set<std::thread::id> threads;
    bool all_met = true;
    pool.run(kShares, [&](std::size_t) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            threads.insert(std::this_thread::get_id());
        }
        arrived.fetch_add(1);
        // Each share waits for all: only shares that run at once get past this (bounded, so a
        // pool that ran them one after another fails instead of hanging).
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (arrived.load() < kShares && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        std::lock_guard<std::mutex> lock(mutex);
        all_met = all_met && arrived.load() == kShares;
    });
    EXPECT_TRUE(all_met);
    EXPECT_EQ(threads.size(), kShares);
}

TEST(DecodePool, HelpersThatCannotStartLeaveTheirSharesToTheThreadsThereAre) {
    DecodePool pool;
    detail::fail_thread_starts_for_testing(3);
    std::vector<std::thread::id> ran_on(4);
    pool.run(4, [&](std::size_t k) { ran_on[k] = std::this_thread::get_id(); });
    detail::fail_thread_starts_for_testing(0);
    EXPECT_EQ(pool.helpers(), 0u);
    for (const std::thread::id& t : ran_on) EXPECT_EQ(t, std::this_thread::get_id());
}

TEST(DecodePool, StopJoinsTheHelpersAndALaterRunStartsThemAgain) {
    DecodePool pool;
    std::atomic<int> shares_run{0};
    pool.run(3, [&](std::size_t) { shares_run.fetch_add(1); });
    EXPECT_EQ(pool.helpers(), 2u);
    pool.stop();
    EXPECT_EQ(pool.helpers(), 0u);
    pool.run(3, [&](std::size_t) { shares_run.fetch_add(1); });
    EXPECT_EQ(pool.helpers(), 2u);
    EXPECT_EQ(shares_run.load(), 6);
}

// Small rings, so the recording threads wait on the drain and their rings grow while four
// threads read them: every scope is counted, on the thread that recorded it.
TEST(SplitDrain, EightThreadsRecordingFlatOutIntoSmallRingsLoseNothingWithFourDrainers) {
    testing::TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "split";
    c.backends = {"timers"};
    c.system_metrics = false;
    c.drainers = 4;
    c.ring_bytes = 64 << 10;
    constexpr int kThreads = 8;
    const long iterations = testing::kSanitized ? 20000 : 200000;
    Session session(c);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([iterations] {
            for (long i = 0; i < iterations; ++i) {
                PROF_SCOPE("flat_out");
                PROF_SCOPE("flat_inner");
            }
        });
    }
    for (std::thread& t : threads) t.join();
    const Snapshot s = session.snapshot();
    const TimerNode* outer = s.tree.root.find("flat_out");
    ASSERT_NE(outer, nullptr);
    const TimerNode* inner = outer->find("flat_inner");
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(outer->count, static_cast<std::uint64_t>(kThreads) * iterations);
    EXPECT_EQ(inner->count, static_cast<std::uint64_t>(kThreads) * iterations);
    EXPECT_TRUE(outer->is_parallel);
    EXPECT_EQ(s.dropped, 0u);
    std::size_t recorders = 0;
    for (const ThreadInfo& t : s.threads) {
        const TimerNode* own = t.tree.find("flat_out");
        if (own == nullptr) continue;
        ++recorders;
        EXPECT_EQ(own->count, static_cast<std::uint64_t>(iterations)) << "thread " << t.tid;
    }
    EXPECT_EQ(recorders, static_cast<std::size_t>(kThreads));
}

}  // namespace
}  // namespace ringprof
