// RINGPROF_ON_FULL: with `wait` (the default) a hot loop loses no scope, the waiting is recorded
// where it happened, and no situation without a drainer makes a marker hang; with `drop` every
// refused scope is counted. Scenarios that could hang run in a child with a deadline.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "blocking_backend.hpp"
#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

using namespace std::chrono_literals;
using testing::BlockingBackend;
using testing::Outcome;
using testing::run_bounded;
using testing::scaled;
using testing::TempDir;
using testing::without_exit_handlers;

Config all_outputs(const TempDir& dir) {
    Config c;  // default ring size and policy, every built-in output
    c.output_dir = dir.str();
    c.run_id = "test";
    return c;
}

void nested_loop(long iterations) {
    for (long i = 0; i < iterations; ++i) {
        PROF_SCOPE("outer");
        PROF_SCOPE("inner");
    }
}

// Recorded outer + inner scopes of the process tree.
std::uint64_t recorded(const Snapshot& s) {
    const TimerNode* outer = s.tree.root.find("outer");
    if (outer == nullptr) return 0;
    const TimerNode* inner = outer->find("inner");
    return outer->count + (inner != nullptr ? inner->count : 0);
}

// The workload: 3 threads x 20,000 iterations of two nested scopes, then join.
// Returns an empty string when exact, else what was wrong.
std::string three_threads_exact(const Config& c) {
    const long iterations = scaled(20'000);
    Session session(c);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) threads.emplace_back([&] { nested_loop(iterations); });
    for (auto& t : threads) t.join();
    const Snapshot s = session.snapshot();
    const auto issued = static_cast<std::uint64_t>(3 * 2 * iterations);
    if (recorded(s) == issued && s.dropped == 0) return {};
    return "recorded " + std::to_string(recorded(s)) + " of " + std::to_string(issued) + ", dropped " +
           std::to_string(s.dropped);
}

TEST(ExactByDefault, ThreeThreadsOfNestedScopesLoseNothingIn20ConsecutiveRuns) {
    TempDir dir;
    const Outcome child = run_bounded(
        [&] {
            for (int run = 0; run < 20; ++run) {
                const std::string wrong = three_threads_exact(all_outputs(dir));
                if (!wrong.empty()) {
                    std::fprintf(stderr, "run %d: %s\n", run, wrong.c_str());
                    return 1;
                }
            }
            return 0;
        },
        without_exit_handlers(120s));
    ASSERT_TRUE(child.finished) << "hung";
    EXPECT_EQ(child.exit_code, 0);
}

TEST(ExactByDefault, ThreeThreadsLoseNothingWhileTwoBusyProcessesHoldBothCores) {
    TempDir dir;
    std::vector<pid_t> busy;
    for (int i = 0; i < 2; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::alarm(150);  // never outlives the test, whatever happens to it
            for (volatile std::uint64_t x = 0;; x = x + 1) {
            }
        }
        busy.push_back(pid);
    }
    const Outcome child = run_bounded(
        [&] {
            for (int run = 0; run < 20; ++run) {
                const std::string wrong = three_threads_exact(all_outputs(dir));
                if (!wrong.empty()) {
                    std::fprintf(stderr, "run %d: %s\n", run, wrong.c_str());
                    return 1;
                }
            }
            return 0;
        },
        without_exit_handlers(120s));
    for (pid_t pid : busy) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    ASSERT_TRUE(child.finished) << "hung";
    EXPECT_EQ(child.exit_code, 0);
}

TEST(DropPolicy, RecordedPlusDroppedEqualsIssuedExactly) {
    TempDir dir;
    Config c = all_outputs(dir);
    c.on_full = OnFull::Drop;
    c.ring_bytes = 4096;  // 256 events: drops are certain
    const long iterations = scaled(50'000);
    auto session = std::make_unique<Session>(c);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) threads.emplace_back([&] { nested_loop(iterations); });
    for (auto& t : threads) t.join();
    const Snapshot s = session->snapshot();
    EXPECT_GT(s.dropped, 0u);
    EXPECT_EQ(recorded(s) + s.dropped, static_cast<std::uint64_t>(3 * 2 * iterations));
    EXPECT_EQ(s.waits, 0u) << "the drop policy never waits";

    // Never silent: one line at the first flush (not at the next) and one at the end, each
    // with the count and the setting that avoids it.
    ::testing::internal::CaptureStderr();
    session->flush();
    session->flush();
    session.reset();
    const std::string err = ::testing::internal::GetCapturedStderr();
    const std::string count = std::to_string(s.dropped) + " scopes dropped";
    const std::size_t first = err.find(count);
    ASSERT_NE(first, std::string::npos) << err;
    const std::size_t second = err.find(count, first + 1);
    ASSERT_NE(second, std::string::npos) << err;
    EXPECT_EQ(err.find(count, second + 1), std::string::npos) << err;
    EXPECT_NE(err.find("at the end of the session"), std::string::npos) << err;
    EXPECT_NE(err.find("set RINGPROF_ON_FULL=wait"), std::string::npos) << err;
}

TEST(FullRingSetting, RingprofOnFullSelectsThePolicyAndDefaultsToWait) {
    ::unsetenv("RINGPROF_ON_FULL");
    EXPECT_EQ(Config::from_environment().on_full, OnFull::Wait);
    ::setenv("RINGPROF_ON_FULL", "drop", 1);
    EXPECT_EQ(Config::from_environment().on_full, OnFull::Drop);
    ::setenv("RINGPROF_ON_FULL", "wait", 1);
    EXPECT_EQ(Config::from_environment().on_full, OnFull::Wait);
    ::setenv("RINGPROF_ON_FULL", "sometimes", 1);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(Config::from_environment().on_full, OnFull::Wait);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("RINGPROF_ON_FULL"), std::string::npos) << err;
    ::unsetenv("RINGPROF_ON_FULL");
}

// Keeps the spans a backend receives: name and depth.
class SpanCollector : public Backend {
public:
    const char* name() const override { return "span_collector"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch& batch) override {
        std::lock_guard<std::mutex> lock(mutex);
        for (const Span& s : batch.spans) spans.emplace_back(s.name, s.depth);
    }
    std::mutex mutex;
    std::vector<std::pair<std::string, std::uint32_t>> spans;
};

TEST(WaitPolicy, WaitingIsRecordedAsARingprofWaitScopeWhereItHappened) {
    TempDir dir;
    Config c = all_outputs(dir);
    c.backends = {"timers"};
    c.ring_bytes = 1024;  // 64 events and no growth: the loop below must wait
    Session session(c);
    auto collector = std::make_unique<SpanCollector>();
    SpanCollector* spans = collector.get();
    session.add_backend(std::move(collector));
    const long inner_calls = scaled(20'000);
    std::thread worker([&] {
        PROF_SCOPE("outer");
        for (long i = 0; i < inner_calls; ++i) {
            PROF_SCOPE("inner");
        }
    });
    worker.join();
    session.flush();
    const Snapshot s = session.snapshot();
    ASSERT_GT(s.waits, 0u);
    EXPECT_EQ(s.dropped, 0u);
    const TimerNode* outer = s.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    ASSERT_NE(outer->find("inner"), nullptr);
    EXPECT_EQ(outer->find("inner")->count, static_cast<std::uint64_t>(inner_calls));
    // Where it happened: inside "outer", between two "inner" scopes; nowhere else.
    const TimerNode* wait = outer->find("ringprof.wait");
    ASSERT_NE(wait, nullptr);
    EXPECT_EQ(wait->count, s.waits);
    EXPECT_GT(wait->total, 0.0);
    EXPECT_EQ(s.tree.root.find("ringprof.wait"), nullptr);
    EXPECT_NEAR(wait->total * 1e9, static_cast<double>(s.wait_ns), 1e-3 * static_cast<double>(s.wait_ns) + 1000);

    // The metadata of the written file: totals and per thread.
    const TimerTree t = load_timers_json(dir.str() + "/test_timers.json");
    ASSERT_NE(t.find_metadata("ring_waits"), nullptr);
    EXPECT_EQ(std::stoull(*t.find_metadata("ring_waits")), s.waits);
    ASSERT_NE(t.find_metadata("ring_wait_ns"), nullptr);
    EXPECT_GT(std::stoull(*t.find_metadata("ring_wait_ns")), 0u);
    ASSERT_NE(t.find_metadata("ring_waits_by_thread"), nullptr);
    const std::string by_thread = *t.find_metadata("ring_waits_by_thread");  // tid:waits:ns
    const std::size_t colon = by_thread.find(':');
    ASSERT_NE(colon, std::string::npos);
    EXPECT_EQ(std::stoull(by_thread.substr(colon + 1)), s.waits);

    // And in the timelines, one level below "outer".
    std::lock_guard<std::mutex> lock(spans->mutex);
    std::uint64_t wait_spans = 0;
    for (const auto& [name, depth] : spans->spans) {
        if (name != "ringprof.wait") continue;
        ++wait_spans;
        EXPECT_EQ(depth, 1u);
    }
    EXPECT_EQ(wait_spans, s.waits);
}

// A producer flooding a ring that can never grow, with the default wait policy.
void flood(std::atomic<bool>& stop) {
    while (!stop.load(std::memory_order_relaxed)) nested_loop(1000);
}

TEST(WaitPolicy, StoppingTheSessionUnderWaitingProducersFinishes) {
    TempDir dir;
    const Outcome child = run_bounded(
        [&] {
            Config c = all_outputs(dir);
            c.ring_bytes = 1024;
            auto session = std::make_unique<Session>(c);
            std::atomic<bool> stop{false};
            std::vector<std::thread> threads;
            for (int t = 0; t < 3; ++t) threads.emplace_back([&] { flood(stop); });
            std::this_thread::sleep_for(50ms);
            session.reset();  // while the producers wait for room
            std::this_thread::sleep_for(20ms);
            stop = true;
            for (auto& t : threads) t.join();
            return 0;
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(child.finished) << "a producer kept waiting after its session stopped";
    EXPECT_EQ(child.exit_code, 0);
}

TEST(WaitPolicy, AForkedChildRecordsExactlyAndFinishes) {
    if (ringprof::testing::kThreadSanitizer)
        GTEST_SKIP() << "ThreadSanitizer does not support threads started after fork";
    TempDir dir;
    const Outcome parent = run_bounded(
        [&] {
            Config c = all_outputs(dir);
            c.ring_bytes = 1024;
            Session session(c);
            nested_loop(100);
            PROF_SCOPE("open_across_fork");
            const Outcome child = run_bounded(
                [] {
                    // No drainer exists here until the first marker starts the child's session.
                    const long n = scaled(20'000);
                    nested_loop(n);
                    flush();
                    const std::uint64_t dropped = dropped_scopes();
                    return dropped == 0 ? 0 : 1;
                },
                without_exit_handlers(30s));
            return child.finished ? child.exit_code : 2;
        },
        without_exit_handlers(60s));
    ASSERT_TRUE(parent.finished) << "hung";
    EXPECT_EQ(parent.exit_code, 0) << "1: the child dropped scopes, 2: the child hung";
}

TEST(WaitPolicy, ExitingWhileProducersWaitFinishes) {
    TempDir dir;
    const Outcome child = run_bounded(
        [&]() -> int {
            ::setenv("RINGPROF_OUTPUT_DIR", dir.str().c_str(), 1);
            ::setenv("RINGPROF_RING_BYTES", "1024", 1);
            ::setenv("RINGPROF_BACKENDS", "timers", 1);
            static std::atomic<bool> never{false};
            for (int t = 0; t < 3; ++t) std::thread([] { flood(never); }).detach();
            std::this_thread::sleep_for(50ms);
            std::exit(0);  // the default session stops under the flooding threads
        },
        without_exit_handlers(30s));
    ASSERT_TRUE(child.finished) << "exit hung with producers waiting for room";
    EXPECT_EQ(child.exit_code, 0);
}

TEST(WaitPolicy, ABackendThatBlocksTheDrainerTurnsWaitsIntoCountedDrops) {
    TempDir dir;
    const Outcome child = run_bounded(
        [&] {
            Config c = all_outputs(dir);
            c.backends = {"timers"};
            c.ring_bytes = 1024;
            Session session(c);
            auto backend = std::make_unique<BlockingBackend>();
            BlockingBackend* blocking = backend.get();
            session.add_backend(std::move(backend));
            const long iterations = scaled(50'000);
            std::thread stuck_flush([] { flush(); });  // the drainer blocks in the backend
            blocking->wait_until_entered();
            std::thread producer([&] { nested_loop(iterations); });
            producer.join();  // must finish although nobody drains
            blocking->released = true;
            stuck_flush.join();
            const Snapshot s = session.snapshot();
            const bool accounted = recorded(s) + s.dropped == static_cast<std::uint64_t>(2 * iterations);
            return s.dropped > 0 && accounted ? 0 : 1;
        },
        without_exit_handlers(60s));
    ASSERT_TRUE(child.finished) << "a blocked drainer made a producer hang";
    EXPECT_EQ(child.exit_code, 0) << "expected counted drops with recorded + dropped = issued";
}

}  // namespace
}  // namespace ringprof
