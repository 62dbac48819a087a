// The Profile API (accelerate.profiler): getstats() entries and sub-entries, recursion,
// clear(), subcalls, threads.
#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"
#include "scenario.hpp"

namespace {

using ringprof::ProfilerEntry;
using ringprof::testing::advance_ms;

void mutual_b(int n);
void mutual_a(int n) {
    PROF_FUNCTION();
    advance_ms(1);
    if (n > 0) mutual_b(n - 1);
}
void mutual_b(int n) {
    PROF_FUNCTION();
    advance_ms(10);
    if (n > 0) mutual_a(n - 1);
}

void deep(int n) {
    PROF_FUNCTION();
    advance_ms(1);
    if (n > 1) deep(n - 1);
}

const ProfilerEntry& entry(const std::vector<ProfilerEntry>& entries, const std::string& name) {
    for (const ProfilerEntry& e : entries) {
        if (e.code.name == name) return e;
    }
    static const ProfilerEntry none;
    ADD_FAILURE() << "no entry " << name;
    return none;
}

class ProfileApi : public ::testing::Test {
protected:
    ringprof::testing::TempDir dir_;
};

TEST_F(ProfileApi, DeepRecursionCountsCumulativeTimeOnce) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    deep(4);
    p.disable();
    const auto entries = p.getstats();
    const ProfilerEntry& e = entry(entries, "deep");
    EXPECT_EQ(e.callcount, 4u);
    EXPECT_EQ(e.reccallcount, 3u);
    EXPECT_NEAR(e.totaltime, 0.004, 1e-12);   // the outermost call only
    EXPECT_NEAR(e.inlinetime, 0.004, 1e-12);  // one millisecond of its own per level
    ASSERT_TRUE(e.calls.has_value());
    ASSERT_EQ(e.calls->size(), 1u);  // deep -> deep
    EXPECT_EQ(e.calls->front().code.name, "deep");
    EXPECT_EQ(e.calls->front().callcount, 3u);
    EXPECT_EQ(e.calls->front().reccallcount, 2u);
    EXPECT_NEAR(e.calls->front().totaltime, 0.003, 1e-12);
}

TEST_F(ProfileApi, MutualRecursion) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    mutual_a(3);  // a(1) b(10) a(1) b(10)
    p.disable();
    const auto entries = p.getstats();
    const ProfilerEntry& a = entry(entries, "mutual_a");
    const ProfilerEntry& b = entry(entries, "mutual_b");
    EXPECT_EQ(a.callcount, 2u);
    EXPECT_EQ(a.reccallcount, 1u);
    EXPECT_NEAR(a.totaltime, 0.022, 1e-12);
    EXPECT_NEAR(a.inlinetime, 0.002, 1e-12);
    EXPECT_EQ(b.callcount, 2u);
    EXPECT_EQ(b.reccallcount, 1u);
    EXPECT_NEAR(b.totaltime, 0.021, 1e-12);
    EXPECT_NEAR(b.inlinetime, 0.020, 1e-12);
}

TEST_F(ProfileApi, SubEntriesPerCallee) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    stats_scenario::top();
    p.disable();
    const auto entries = p.getstats();
    const ProfilerEntry& top = entry(entries, "top");
    ASSERT_TRUE(top.calls.has_value());
    std::uint64_t dot_calls = 0;
    double dot_time = 0.0;
    for (const auto& s : *top.calls) {
        if (s.code.name == "dot") {
            dot_calls += s.callcount;
            dot_time += s.totaltime;
        }
    }
    EXPECT_EQ(dot_calls, 3u);
    EXPECT_NEAR(dot_time, 0.040, 1e-12);
    EXPECT_EQ(top.calls->size(), 3u);  // dot(16), dot(8), recurse
}

TEST_F(ProfileApi, SubcallsOffLeavesCallsEmpty) {
    auto options = ringprof::testing::fake_clock_options(dir_);
    options.subcalls = false;
    ringprof::Profile p(options);
    p.enable();
    deep(2);
    p.disable();
    for (const auto& e : p.getstats()) EXPECT_FALSE(e.calls.has_value());
    EXPECT_EQ(p.getstats().size(), 1u);
}

TEST_F(ProfileApi, ClearForgetsWhatWasCollected) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    deep(3);
    p.clear();
    EXPECT_TRUE(p.getstats().empty());
    deep(2);
    p.disable();
    const auto entries = p.getstats();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].callcount, 2u);
    EXPECT_EQ(entries[0].reccallcount, 1u);
    EXPECT_NEAR(entries[0].totaltime, 0.002, 1e-12);
}

TEST_F(ProfileApi, DisabledProfileRecordsNothing) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    deep(3);  // before enable()
    p.enable();
    deep(1);
    p.disable();
    deep(3);
    const auto entries = p.getstats();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].callcount, 1u);
}

TEST_F(ProfileApi, ThreadsAddUpIncludingExitedOnes) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([] {
            for (int i = 0; i < 5; ++i) deep(2);
        });
    }
    for (auto& t : threads) t.join();
    deep(1);
    p.disable();
    const auto entries = p.getstats();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].callcount, 3u * 5u * 2u + 1u);
    EXPECT_EQ(entries[0].reccallcount, 3u * 5u);
}

std::uint64_t calls_of(const std::vector<ringprof::FunctionStats>& rows, const std::string& name) {
    std::uint64_t n = 0;
    for (const ringprof::FunctionStats& f : rows) {
        if (f.name == name) n += f.counts.ncalls;
    }
    return n;
}

// What a Python Profile's window on one thread reads: that thread's rows, and no other's.
TEST_F(ProfileApi, ThreadStatsHoldOnlyTheRowsOfTheThreadAsked) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    p.enable();
    std::mutex m;
    std::condition_variable cv;
    std::uint32_t worker_tid = 0;
    bool checked = false;
    std::thread worker([&] {
        for (int i = 0; i < 4; ++i) mutual_a(0);
        std::unique_lock<std::mutex> lock(m);
        worker_tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
        cv.notify_all();
        cv.wait(lock, [&] { return checked; });  // alive while its rows are read
    });
    for (int i = 0; i < 3; ++i) deep(1);
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return worker_tid != 0; });
    }
    ringprof::Session* session = ringprof::Session::current();
    ASSERT_NE(session, nullptr);
    const auto main_rows = session->thread_stats(static_cast<std::uint32_t>(::syscall(SYS_gettid)));
    const auto worker_rows = session->thread_stats(worker_tid);
    {
        std::lock_guard<std::mutex> lock(m);
        checked = true;
    }
    cv.notify_all();
    worker.join();
    p.disable();
    EXPECT_EQ(calls_of(main_rows, "deep"), 3u);
    EXPECT_EQ(calls_of(main_rows, "mutual_a"), 0u);
    EXPECT_EQ(calls_of(worker_rows, "mutual_a"), 4u);
    EXPECT_EQ(calls_of(worker_rows, "deep"), 0u);
    EXPECT_TRUE(session->thread_stats(0).empty());  // no such thread
}

TEST_F(ProfileApi, ACustomTimerNeedsItsOwnSession) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir_));
    auto other = ringprof::testing::fake_clock_options(dir_);
    other.custom_timer = [] { return std::uint64_t{0}; };
    EXPECT_THROW(ringprof::Profile q(other), std::logic_error);
    ringprof::Profile shared{ringprof::ProfileOptions{}};  // joins the running session
    p.enable();
    deep(1);
    p.disable();
    EXPECT_EQ(shared.getstats().size(), 1u);
}

}  // namespace
