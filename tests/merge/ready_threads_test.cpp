// ReadyThreads: every part of every run is done exactly once, by the caller (part 0) or a thread
// of its own, before run() returns; a part's exception reaches the caller after all parts are
// done, and the threads serve the next run as before.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "merge/ready_threads.hpp"

namespace {

using ringprof::detail::ReadyThreads;

TEST(ReadyThreads, EveryPartOfEveryRunIsDoneOnceOnItsOwnThreadBeforeRunReturns) {
    ReadyThreads threads(3);
    ASSERT_EQ(threads.size(), 3u);
    const std::thread::id caller = std::this_thread::get_id();
    for (int run = 0; run < 2000; ++run) {
        const std::size_t n = static_cast<std::size_t>(run % 5);  // 0 to 4 parts, all threads or some
        std::vector<std::atomic<int>> done(n);
        std::vector<std::thread::id> by(n);
        threads.run(n, [&](std::size_t part) {
            by[part] = std::this_thread::get_id();
            done[part].fetch_add(1);
        });
        for (std::size_t p = 0; p < n; ++p) ASSERT_EQ(done[p].load(), 1) << "run " << run << " part " << p;
        if (n > 0) ASSERT_EQ(by[0], caller);
        ASSERT_EQ(std::set<std::thread::id>(by.begin(), by.end()).size(), n) << "run " << run;
    }
}

TEST(ReadyThreads, APartsExceptionReachesTheCallerAfterEveryPartIsDone) {
    ReadyThreads threads(2);
    for (std::size_t thrower = 0; thrower < 3; ++thrower) {
        std::atomic<int> finished{0};
        EXPECT_THROW(threads.run(3,
                                 [&](std::size_t part) {
                                     if (part == thrower) throw std::runtime_error("part failed");
                                     std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                     finished.fetch_add(1);
                                 }),
                     std::runtime_error);
        EXPECT_EQ(finished.load(), 2) << "part " << thrower << " threw";
    }
    std::atomic<int> after{0};
    threads.run(3, [&](std::size_t) { after.fetch_add(1); });
    EXPECT_EQ(after.load(), 3);
}

TEST(ReadyThreads, MorePartsThanThreadsIsRefused) {
    ReadyThreads threads(1);
    EXPECT_THROW(threads.run(3, [](std::size_t) {}), std::logic_error);
}

TEST(ReadyThreads, ThreadsThatNeverRanStopWhenDestroyed) {
    for (int i = 0; i < 50; ++i) ReadyThreads threads(4);
}

}  // namespace
