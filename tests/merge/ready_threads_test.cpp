// ReadyThreads: every part of every run is done exactly once, by the caller (part 0) or a thread
// of its own, before run() returns; a part's exception reaches the caller after all parts are
// done, and the threads serve the next run as before. Each scenario runs in a child with a
// deadline: a lost wake-up between run() and the threads would hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bounded_child.hpp"
#include "merge/ready_threads.hpp"

namespace {

using ringprof::detail::ReadyThreads;
using namespace std::chrono_literals;

TEST(ReadyThreads, EveryPartOfEveryRunIsDoneOnceOnItsOwnThreadBeforeRunReturns) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            ReadyThreads threads(3);
            if (threads.size() != 3) return 10;
            const std::thread::id caller = std::this_thread::get_id();
            for (int run = 0; run < 2000; ++run) {
                const std::size_t n = static_cast<std::size_t>(run % 5);  // 0 to 4 parts, all threads or some
                std::vector<std::atomic<int>> done(n);
                std::vector<std::thread::id> by(n);
                threads.run(n, [&](std::size_t part) {
                    by[part] = std::this_thread::get_id();
                    done[part].fetch_add(1);
                });
                for (std::size_t p = 0; p < n; ++p)
                    if (done[p].load() != 1) return 11;  // a part skipped or done twice
                if (n > 0 && by[0] != caller) return 12;  // part 0 is the caller's
                if (std::set<std::thread::id>(by.begin(), by.end()).size() != n) return 13;  // a thread did two parts
            }
            return 0;
        },
        60s);
    ASSERT_TRUE(outcome.finished) << "hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST(ReadyThreads, APartsExceptionReachesTheCallerAfterEveryPartIsDone) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            ReadyThreads threads(2);
            for (std::size_t thrower = 0; thrower < 3; ++thrower) {
                std::atomic<int> finished{0};
                try {
                    threads.run(3, [&](std::size_t part) {
                        if (part == thrower) throw std::runtime_error("part failed");
                        std::this_thread::sleep_for(std::chrono::milliseconds(5));
                        finished.fetch_add(1);
                    });
                    return 10;  // the exception was lost
                } catch (const std::runtime_error&) {
                }
                if (finished.load() != 2) return 11;  // run() returned before the other parts were done
            }
            std::atomic<int> after{0};
            threads.run(3, [&](std::size_t) { after.fetch_add(1); });
            return after.load() == 3 ? 0 : 12;
        },
        60s);
    ASSERT_TRUE(outcome.finished) << "hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST(ReadyThreads, MorePartsThanThreadsIsRefused) {
    ReadyThreads threads(1);
    EXPECT_THROW(threads.run(3, [](std::size_t) {}), std::logic_error);
}

TEST(ReadyThreads, ThreadsThatNeverRanStopWhenDestroyed) {
    const auto outcome = ringprof::testing::run_bounded(
        [] {
            for (int i = 0; i < 50; ++i) ReadyThreads threads(4);
            return 0;
        },
        30s);
    ASSERT_TRUE(outcome.finished) << "hung";
    EXPECT_EQ(outcome.exit_code, 0);
}

}  // namespace
