// The writer queue under load: nothing lost when the writer keeps up, bounded and counted drops
// when it does not, steps never dropped, and snapshots never run beside on_spans.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "drain/clock_calibration.hpp"
#include "ringprof/ringprof.hpp"
#include "drain/timeline_records.hpp"
#include "timeline_test_support.hpp"
#include "timeline/timeline_writer.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

constexpr Site kSite{"s", "", "", 0};

// Slow on purpose, and checks that no two calls overlap and that the queue stays bounded.
class SlowBackend : public TimelineBackend {
public:
    const char* name() const override { return "slow"; }
    void on_spans(const SpanBatch& b) override {
        enter();
        delivered += b.spans.size();
        for (const Span& s : b.spans) steps += step_mode_of(s.site) >= 0;
        largest_batch = std::max(largest_batch, b.spans.size());
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        leave();
    }
    void on_snapshot(const Snapshot&) override {
        enter();
        ++snapshots;
        leave();
    }
    void on_timeline_flush(const TimelineStatus& s) override {
        enter();
        status = s;
        leave();
    }
    void enter() { EXPECT_FALSE(busy_.exchange(true)) << "two calls into one backend at once"; }
    void leave() { busy_.store(false); }

    std::atomic<std::size_t> delivered{0};
    std::size_t steps = 0, largest_batch = 0;
    std::atomic<int> snapshots{0};
    TimelineStatus status;

private:
    std::atomic<bool> busy_{false};
};

// A started writer whose queue takes 20,000 records, delivering to `backend`.
struct SmallQueueWriter {
    static constexpr std::size_t kQueueSpans = 20000;
    explicit SmallQueueWriter(TimelineBackend& backend) : writer(clock, options()) {
        writer.add_backend(&backend);
        writer.start();
    }
    static detail::TimelineOptions options() {
        detail::TimelineOptions o;
        o.queue_spans = kQueueSpans;
        return o;
    }
    detail::ClockCalibration clock;
    detail::TimelineWriter writer;
};

// Hands the writer `passes` passes of `per_pass` spans each, every `step_every`-th pass inside a
// step of its own, as the drainer does; returns the spans sent.
std::size_t send_passes(detail::TimelineWriter& writer, long passes, std::size_t per_pass, long step_every) {
    detail::TimelineRecords raw;
    const std::vector<detail::SpanThread> threads{{7, "producer"}};
    std::uint64_t t = detail::read_ticks();
    std::size_t produced = 0;
    for (long p = 0; p < passes; ++p) {
        const bool step = p % step_every == 0;
        raw.append(detail::TimelineRecord::thread(7, std::nullopt));
        if (step) {
            raw.append(detail::TimelineRecord::step_begin(0, p, t, 0));
            raw.append(detail::TimelineRecord::thread(7, p));
        }
        for (std::size_t i = 0; i < per_pass; ++i) {
            raw.append(detail::TimelineRecord::span(&kSite, t + 1, t + 2, 1));
            ++produced;
        }
        if (step) {
            raw.append(detail::TimelineRecord::step_end(0, p, t, t + 3, 0));
            raw.append(detail::TimelineRecord::thread(7, std::nullopt));
        }
        t += 4;
        writer.on_pass(raw, threads);
        raw.clear();
    }
    return produced;
}

TEST(TimelineWriter, DropsAndCountsWhenTheWriterFallsBehind) {
    SlowBackend backend;
    SmallQueueWriter w(backend);
    detail::TimelineWriter& writer = w.writer;
    const long passes = scaled(400);
    const std::size_t produced = send_passes(writer, passes, 5000, 1);
    {
        const auto hold = writer.hold();
        EXPECT_EQ(backend.status.dropped_spans, writer.dropped_spans());
    }
    writer.stop();
    EXPECT_GT(writer.dropped_spans(), 0u) << "the backend is slow enough to fall behind";
    EXPECT_EQ(backend.delivered - backend.steps + writer.dropped_spans(), produced)
        << "every span delivered or counted";
    EXPECT_EQ(backend.steps, static_cast<std::size_t>(passes)) << "steps are never dropped";
}

// What a BlockedBackend saw, kept outside it (a session destroys the backends it owns).
struct BlockedTally {
    std::atomic<bool> released{false};
    std::atomic<std::size_t> delivered{0};  // spans, steps left out
    TimelineStatus status;                  // the last flush's (read after the writer has stopped)
};

// Stops in on_spans until released (at most 30 s, so a broken test cannot hang CI).
class BlockedBackend : public TimelineBackend {
public:
    explicit BlockedBackend(BlockedTally& tally) : tally_(tally) {}
    const char* name() const override { return "blocked"; }
    void on_spans(const SpanBatch& b) override {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!tally_.released.load() && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        for (const Span& s : b.spans) tally_.delivered += step_mode_of(s.site) < 0;
    }
    void on_timeline_flush(const TimelineStatus& s) override { tally_.status = s; }

private:
    BlockedTally& tally_;
};

// Behind a backend that does not return, the queue holds at most its span budget of stream
// memory, plus the few records of each later pass it keeps (its steps): a pass's spans are dropped
// and counted, and the pass's memory goes back to the pool instead of waiting in the queue.
TEST(TimelineWriter, ABlockedBackendHoldsTheQueueToItsBudgetInMemoryToo) {
    BlockedTally tally;
    BlockedBackend backend(tally);
    SmallQueueWriter w(backend);
    detail::TimelineWriter& writer = w.writer;
    const long passes = 400;
    const std::size_t produced = send_passes(writer, passes, 5000, 2);
    // Spans within the budget, each with a pass's slack, and a handful of slots per kept pass.
    const std::size_t bound = 2 * SmallQueueWriter::kQueueSpans + static_cast<std::size_t>(passes) * 16;
    EXPECT_LE(writer.queued_slots(), bound) << "stream memory queued behind the blocked backend";
    EXPECT_GT(writer.dropped_spans(), 0u);
    tally.released = true;
    { const auto hold = writer.hold(); }
    writer.stop();
    EXPECT_EQ(writer.queued_slots(), 0u);
    EXPECT_EQ(tally.delivered + writer.dropped_spans(), produced) << "every span delivered or counted";
}

// The drainer asks the writer how many more spans its queue takes (and writes the spans of only
// as much of a range as fits, withholding the rest: timeline_records.hpp, WithheldSpans, counted
// by the writer's filters). Behind a blocked backend the room shrinks by each pass's spans
// exactly, its steps not counted, down to none; once the writer has caught up it is whole again.
TEST(TimelineWriter, TheQueueSaysHowManyMoreSpansItTakesCountingSpansOnly) {
    BlockedTally tally;
    BlockedBackend backend(tally);
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);
    detail::TimelineOptions options;
    options.queue_spans = 20000;
    options.max_depth = 3;  // send_passes' spans are at depth 1, and 1 tick long: no duration limit
    detail::TimelineWriter writer(clock, options);
    writer.add_backend(&backend);
    writer.start();
    detail::WithheldSpans limits;
    EXPECT_EQ(writer.span_room(limits), 20000u) << "an empty queue takes its whole budget";
    EXPECT_EQ(limits.max_depth, 3u);
    EXPECT_EQ(limits.min_ticks, 0u);
    for (std::size_t pass = 1; pass <= 4; ++pass) {
        send_passes(writer, 1, 5000, 1);  // each pass in a step of its own
        EXPECT_EQ(writer.span_room(limits), 20000u - 5000u * pass) << "after pass " << pass;
    }
    EXPECT_EQ(writer.dropped_spans(), 0u) << "four passes of 5,000 spans fit a queue of 20,000";
    send_passes(writer, 1, 5000, 1);
    EXPECT_EQ(writer.dropped_spans(), 5000u) << "a fifth does not";
    EXPECT_EQ(writer.span_room(limits), 0u);
    tally.released = true;
    { const auto hold = writer.hold(); }
    EXPECT_EQ(writer.span_room(limits), 20000u) << "the writer has caught up";
    writer.stop();
}

// Holds the drainer inside on_snapshot (which runs on it) from the flush after want() until
// release(), so that what a thread records meanwhile reaches the drainer as one ring range.
// Bounded (30 s), so that a broken test cannot hang CI.
class DrainerHold : public Backend {
public:
    const char* name() const override { return "hold"; }
    void on_snapshot(const Snapshot&) override {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!wanted_) return;
        held_ = true;
        changed_.notify_all();
        changed_.wait_for(lock, std::chrono::seconds(30), [&] { return !wanted_; });
    }
    void want() {
        std::lock_guard<std::mutex> lock(mutex_);
        wanted_ = true;
    }
    bool wait_until_held() {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return held_; });
    }
    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        wanted_ = false;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool wanted_ = false, held_ = false;
};

// One ring range with more spans than the whole queue holds, reaching a writer with nothing in
// flight: the spans that fit are written, in that pass already, and the rest are counted. (A
// drainer that took such a range whole because the queue was empty would have the writer refuse
// the pass as larger than its budget: flat out on grown rings, every span sent and none received.)
TEST(TimelineWriter, ARangeLargerThanTheQueueWritesWhatFitsAndCountsTheRest) {
    Collected c;
    TempDir dir;
    Config config = timeline_config(dir.str(), {"timers"});
    config.timeline_queue_spans = 100;
    constexpr std::size_t kScopes = 400;  // 800 events: within a ring's first segment (1,024)
    {
        Session session(config);
        session.add_backend(std::make_unique<CollectingBackend>(c));
        auto hold = std::make_unique<DrainerHold>();
        DrainerHold* held = hold.get();
        session.add_backend(std::move(hold));
        held->want();
        std::thread flusher([&] { session.flush(); });
        EXPECT_TRUE(held->wait_until_held()) << "the drainer never ran the snapshot";  // (joined below)
        for (std::size_t i = 0; i < kScopes; ++i) {
            PROF_SCOPE("burst");
        }
        held->release();
        flusher.join();
        session.flush();
        EXPECT_EQ(session.snapshot().waits, 0u) << "the burst fits the ring: no span but the burst's";
    }
    std::size_t burst = 0;
    for (const Span& s : c.spans) burst += std::string(s.name) == "burst";
    EXPECT_EQ(burst, config.timeline_queue_spans) << "the first pass fills the empty queue";
    EXPECT_EQ(burst + c.status.dropped_spans, kScopes) << "every span delivered or counted";
}

// End to end, with spans withheld at the source: behind a blocked backend, a producer records
// bursts of scope pairs, a few passes' worth of which fill the queue; the drainer withholds the
// spans of every pass after that. The inner scope of each pair is below the depth limit.
TEST(TimelineWriter, EverySpanOfARealSessionBehindABlockedBackendIsDeliveredOrCounted) {
    BlockedTally tally;
    TempDir dir;
    Config config = timeline_config(dir.str(), {"timers"});
    config.timeline_queue_spans = 20'000;
    config.timeline_max_depth = 1;
    constexpr long kBursts = 200, kPairsPerBurst = 1000;
    std::uint64_t waits = 0;
    {
        Session session(config);
        session.add_backend(std::make_unique<BlockedBackend>(tally));
        std::thread producer([&] {
            for (long b = 0; b < kBursts; ++b) {
                for (long i = 0; i < kPairsPerBurst; ++i) {
                    PROF_SCOPE("outer");
                    PROF_SCOPE("inner");
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        producer.join();
        tally.released = true;
        waits = session.snapshot().waits;  // each wait for room is a span of its own
    }
    const std::uint64_t spans = 2 * static_cast<std::uint64_t>(kBursts * kPairsPerBurst) + waits;
    EXPECT_GT(tally.status.dropped_spans, 0u) << "the blocked backend held the queue full";
    EXPECT_GE(tally.status.filtered_spans, static_cast<std::uint64_t>(kBursts * kPairsPerBurst))
        << "every inner scope is too deep";
    EXPECT_EQ(tally.delivered + tally.status.dropped_spans + tally.status.filtered_spans, spans)
        << "every span delivered or counted, and counted once";
}

TEST(TimelineWriter, ManyThreadsThroughARealSessionLoseNothing) {
    Collected c;
    auto collect = std::make_unique<CollectingBackend>(c);
    TempDir dir;
    Config config = timeline_config(dir.str(), {"trace", "pythontimeline"});
    config.ring_bytes = std::size_t{16} << 20;
    config.flush_interval_ms = 2;  // snapshots interleave with span delivery all the time
    config.pythontimeline_max_bytes = 1 << 20;
    const long per_thread = scaled(50'000);
    {
        Session session(config);
        session.add_backend(std::move(collect));
        std::vector<std::thread> threads;
        for (int w = 0; w < 4; ++w) {
            threads.emplace_back([&] {
                for (long i = 0; i < per_thread; ++i) {
                    PROF_SCOPE("hot");
                }
            });
        }
        for (int f = 0; f < 5; ++f) flush();
        for (auto& t : threads) t.join();
        EXPECT_EQ(session.snapshot().dropped, 0u);
    }
    EXPECT_EQ(c.status.dropped_spans, 0u);
    // Besides "hot", only the recorded waits for room (RINGPROF_ON_FULL=wait) and the growths a
    // thread made itself may appear.
    std::size_t hot_spans = 0;
    for (const Span& s : c.spans) {
        const std::string name(s.name);
        if (name == "hot")
            ++hot_spans;
        else
            EXPECT_TRUE(name == "ringprof.wait" || name == "ringprof.grow") << name;
    }
    EXPECT_EQ(hot_spans, static_cast<std::size_t>(4 * per_thread));
    // The gzip trace holds the same count.
    const std::string json = gunzip(read_text(dir.path() / "t_trace.json.gz"));
    std::size_t hot = 0;
    for (std::size_t pos = json.find("\"name\":\"hot\""); pos != std::string::npos;
         pos = json.find("\"name\":\"hot\"", pos + 1))
        ++hot;
    EXPECT_EQ(hot, static_cast<std::size_t>(4 * per_thread));
}

TEST(TimelineWriter, SnapshotsNeverRunBesideSpanDelivery) {
    auto slow = std::make_unique<SlowBackend>();
    SlowBackend* b = slow.get();
    TempDir dir;
    Config config = timeline_config(dir.str(), {"timers"});
    config.flush_interval_ms = 1;
    {
        Session session(config);
        session.add_backend(std::move(slow));
        // Until several periodic snapshots have interleaved with span delivery (bounded).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        while (std::chrono::steady_clock::now() < until && b->snapshots.load() < 5) {
            PROF_SCOPE("x");
        }
        flush();
        // Read before the session (which owns the backend) ends.
        EXPECT_GT(b->snapshots.load(), 3);
        EXPECT_GT(b->delivered.load(), 0u);
    }
}

}  // namespace
}  // namespace ringprof
