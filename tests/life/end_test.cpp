// The end of a session completes: it waits while ringprof's threads make progress and gives up only
// on one that stopped moving; the aggregates never wait for a timeline; a drainer the end gave up
// on never takes a later session's scopes; and a periodic flush never stalls the drainer. Each
// scenario that ends a process runs in a child with a deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "blocking_backend.hpp"
#include "bounded_process.hpp"
#include "session/session_impl.hpp"
#include "env_session.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"
#include "timers_only_config.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

std::uint64_t count_in_timers(const std::string& path, const char* name) {
    const TimerTree tree = load_timers_json(path);
    const TimerNode* node = tree.root.find(name);
    return node != nullptr ? node->count : 0;
}

// A timeline backend that takes `per_span` for every span it is given: slow, but always moving
// (no single call takes longer than a batch of spans does). Writes how many spans it got when
// closed.
class SlowSpans : public Backend {
public:
    SlowSpans(std::string out, std::chrono::microseconds per_span) : out_(std::move(out)), per_span_(per_span) {}
    const char* name() const override { return "slow_spans"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch& b) override {
        spans_ += b.spans.size();
        std::this_thread::sleep_for(per_span_ * b.spans.size());
    }
    void on_close() override { std::ofstream(out_) << spans_; }

private:
    std::string out_;
    std::chrono::microseconds per_span_;
    std::uint64_t spans_ = 0;
};

// A timeline backend whose spans never return (until the process ends).
class NeverReturns : public Backend {
public:
    const char* name() const override { return "never_returns"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch&) override {
        for (;;) std::this_thread::sleep_for(1s);
    }
};

// In the child: a first scope starts the session (timers, from the environment), `writer` joins
// it, then `scopes` scopes named "work" run; at exit the end waits for the writer as long as it
// makes progress, and `exit_wait` at most without.
void record_behind(const TempDir& dir, const char* run_id, std::chrono::milliseconds exit_wait,
                   std::unique_ptr<Backend> writer, long scopes) {
    record_to(dir, run_id, "timers");
    detail::set_exit_wait_for_testing(exit_wait);
    { PROF_SCOPE("first"); }
    Session::current()->add_backend(std::move(writer));
    for (long i = 0; i < scopes; ++i) {
        PROF_SCOPE("work");
    }
}

// 5 s of writing left at exit, against a bound of 2 s without progress: a fixed total of 2 s
// gives up on it; no single call of the backend (a batch of at most 8,192 spans) takes more than
// a fifth of the bound, so a loaded machine stretching one call does not fail the test.
TEST(End, WaitsWhileATimelineBackendMakesProgress) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const std::string got = dir.str() + "/spans.txt";
    constexpr long kScopes = 100'000;
    const Outcome o = run_bounded(
        [&] {
            record_behind(dir, "slow", 2000ms, std::make_unique<SlowSpans>(got, 50us), kScopes);
            return 0;  // exit with ~5 s of spans still to write
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished) << "exit hung";
    EXPECT_EQ(o.exit_code, 0);
    const std::string text = read_text(err);
    EXPECT_EQ(occurrences(text, "gave up"), 0) << text;
    EXPECT_EQ(read_text(got), std::to_string(kScopes)) << "every span reached the slow backend";
    EXPECT_EQ(count_in_timers(dir.str() + "/slow_timers.json", "work"), static_cast<std::uint64_t>(kScopes));
}

TEST(End, WritesTheAggregatesWhenATimelineBackendNeverReturns) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_behind(dir, "stuck", 300ms, std::make_unique<NeverReturns>(), 1000);
            return 0;
        },
        stderr_to(err, 60s));
    ASSERT_TRUE(o.finished) << "exit waited for a backend that never returns";
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(count_in_timers(dir.str() + "/stuck_timers.json", "work"), 1000u) << "the aggregates are whole";
    const std::string text = read_text(err);
    EXPECT_EQ(occurrences(text, "gave up on the timeline writer after 0.3 s without progress"), 1) << text;
    EXPECT_EQ(occurrences(text, "backend 'never_returns'"), 1) << "names the backend it is blocked in: " << text;
    EXPECT_EQ(occurrences(text, "the output of never_returns may be incomplete"), 1) << "names what is left: " << text;
}

// Another thread's flush() waits for a writer that never returns when main returns: the end
// gives up on that call after the bound (an idle drainer is no progress) and still writes the
// aggregates.
TEST(End, AFlushWaitingForAStuckWriterHoldsExitForABoundedTimeAndTheAggregatesAreWritten) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_behind(dir, "flushing", 300ms, std::make_unique<NeverReturns>(), 1000);
            std::atomic<bool> flushing{false};
            std::thread([&flushing] {
                flushing = true;
                flush();  // waits for the stuck writer for good
            }).detach();
            while (!flushing) std::this_thread::sleep_for(1ms);
            std::this_thread::sleep_for(50ms);
            return 0;
        },
        stderr_to(err, 60s));
    ASSERT_TRUE(o.finished) << "exit waited for a flush that never returns";
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(count_in_timers(dir.str() + "/flushing_timers.json", "work"), 1000u) << "the aggregates are whole";
    const std::string text = read_text(err);
    EXPECT_EQ(occurrences(text, "gave up on the timeline writer"), 1) << text;
}

// The drainer's final snapshot blocks until released; the end gives up on it, and the next
// session records on the same thread. The given-up drainer must never keep that thread's ring:
// the next session sees every scope.
std::atomic<bool> g_hold_final{false};

TEST(End, ADrainerGivenUpOnNeverTakesTheNextSessionsScopes) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c = timers_only(dir, "first");
            c.flush_interval_ms = 1;  // a periodic drain right after the held call returns, too
            detail::set_exit_wait_for_testing(300ms);
            g_hold_final = true;
            {
                Session first(c);
                first.add_backend(std::make_unique<HoldsTheFinalSnapshot>(g_hold_final));
                for (int i = 0; i < 100; ++i) {
                    PROF_SCOPE("in_first");
                }
            }  // gives up on its drainer
            g_hold_final = false;  // which then returns
            c.run_id = "second";
            c.flush_interval_ms = 0;
            Session second(c);
            constexpr std::uint64_t kPerThread = 1000;
            constexpr std::uint64_t kScopes = 4 * kPerThread;  // this thread's ring, and three new ones
            std::vector<std::thread> threads;
            for (int t = 0; t < 3; ++t) {
                threads.emplace_back([] {
                    for (std::uint64_t i = 0; i < kPerThread; ++i) {
                        PROF_SCOPE("in_second");
                    }
                });
            }
            for (std::uint64_t i = 0; i < kPerThread; ++i) {
                PROF_SCOPE("in_second");
            }
            for (auto& t : threads) t.join();
            // The given-up drainer hands the ring back once its call returns; wait for it.
            std::uint64_t seen = 0;
            for (int wait = 0; wait < 30'000 && seen != kScopes; ++wait) {
                const Snapshot s = second.snapshot();
                const TimerNode* node = s.tree.root.find("in_second");
                seen = node != nullptr ? node->count : 0;
                if (seen != kScopes) std::this_thread::sleep_for(1ms);
            }
            std::fprintf(stderr, "second session: %llu of %llu\n", static_cast<unsigned long long>(seen),
                         static_cast<unsigned long long>(kScopes));
            return seen == kScopes ? 0 : 1;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished) << "hung";
    EXPECT_EQ(o.exit_code, 0) << read_text(err);
}

// A timeline backend stuck while the program records flat out with a flush interval: the flush
// must not hold the drainer on the writer, or the producers (waiting for room) give the drainer up
// and drop. Exact, whatever the writer does.
std::atomic<bool> g_recording{false};
class StuckWhileRecording : public Backend {
public:
    const char* name() const override { return "stuck_while_recording"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch&) override {
        while (g_recording.load()) std::this_thread::sleep_for(1ms);
    }
};

// In a child: a session ended in this process leaves the markers off for the tests after it.
TEST(End, AFlushIntervalNeverCostsTheAggregates) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c = timers_only(dir, "interval");
            c.flush_interval_ms = 5;
            c.ring_bytes = 4096;  // full in 256 events: the producer depends on the drainer all along
            Session session(c);
            session.add_backend(std::make_unique<StuckWhileRecording>());
            constexpr std::uint64_t kScopes = 200'000;
            g_recording = true;
            std::thread producer([] {
                for (std::uint64_t i = 0; i < kScopes; ++i) {
                    PROF_SCOPE("work");
                }
            });
            producer.join();
            g_recording = false;
            const Snapshot s = session.snapshot();
            const TimerNode* work = s.tree.root.find("work");
            const std::uint64_t recorded = work != nullptr ? work->count : 0;
            std::fprintf(stderr, "recorded %llu of %llu, dropped %llu\n", static_cast<unsigned long long>(recorded),
                         static_cast<unsigned long long>(kScopes), static_cast<unsigned long long>(s.dropped));
            return recorded == kScopes && s.dropped == 0 ? 0 : 1;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished) << "hung";
    EXPECT_EQ(o.exit_code, 0) << read_text(err);
}

// While the writer is stuck, the drainer's periodic flushes go on writing the aggregates, but
// hand the writer a new snapshot only once it has taken the last: a stuck writer holds one
// snapshot in memory, not one per interval.
std::atomic<bool> g_writer_stuck{false};
std::atomic<int> g_span_side_snapshots{0};
std::atomic<int> g_aggregate_snapshots{0};
class StuckSpans : public Backend {
public:
    const char* name() const override { return "stuck_spans"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch&) override {
        while (g_writer_stuck.load()) std::this_thread::sleep_for(1ms);
    }
    void on_snapshot(const Snapshot&) override { g_span_side_snapshots.fetch_add(1); }
};
class CountsSnapshots : public Backend {
public:
    const char* name() const override { return "counts_snapshots"; }
    void on_snapshot(const Snapshot&) override { g_aggregate_snapshots.fetch_add(1); }
};

TEST(End, AWriterBehindAPeriodicFlushHoldsOneSnapshotNotOnePerInterval) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c = timers_only(dir, "behind");
            c.flush_interval_ms = 1;
            Session session(c);
            session.add_backend(std::make_unique<CountsSnapshots>());
            session.add_backend(std::make_unique<StuckSpans>());
            g_writer_stuck = true;
            { PROF_SCOPE("gets_the_writer_stuck"); }
            while (g_aggregate_snapshots.load() < 50) std::this_thread::sleep_for(1ms);  // 50 flushes while stuck
            const int stuck_with = g_span_side_snapshots.load();
            g_writer_stuck = false;
            const int at_release = g_aggregate_snapshots.load();
            std::this_thread::sleep_for(20ms);
            const int span_side = g_span_side_snapshots.load();
            const int flushed_since = g_aggregate_snapshots.load() - at_release;
            std::fprintf(stderr, "taken while stuck %d, after %d flushes since release the writer took %d\n",
                         stuck_with, flushed_since, span_side);
            // Those taken before it got stuck, the one pending when it came back, those sent since.
            return span_side <= stuck_with + flushed_since + 2 ? 0 : 1;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished) << "hung";
    EXPECT_EQ(o.exit_code, 0) << read_text(err);
}

}  // namespace
}  // namespace ringprof::testing
