// Moves completed spans from the drainer to the timeline backends, which run on a thread of
// their own so compression and file I/O never stall draining.
//
// The drainer's side (on_pass, its span sink) hands its filled TimelineRecords
// (timeline_records.hpp: raw ticks, 16 bytes a span) to the writer and goes on with a recycled
// one (unless filters apply: then two compares per span and the survivors are copied into a
// recycled queue item), stamped with the pass's time. The rest happens on the writer: step
// records update the step intervals, scopes get their thread, step label and absolute time and
// reach the backends in batches. (Converting on the drainer cost it ~40 ns per span, enough for
// rings to overflow on a busy two-core machine in the demo.)
//
// Step labels are assigned by time: a span carries the step that was running when it began, on
// whatever thread the step marker ran. Rings are read in arbitrary order, so a worker's span may
// be decoded before the main thread's StepBegin that precedes it. A span is therefore held back
// until a later pass has started after its begin: every event published before that pass began
// (including every StepBegin with an earlier timestamp) had been decoded by then. The stepping
// thread's own spans keep the step from its own stack, which is exact.
//
// Backpressure: at most `queue_spans` spans and gauge samples are in flight between the drainer
// and the writer (steps and Thread records are never dropped, and not counted). The drainer asks
// span_room() how many more the queue takes before it decodes a ring range, and writes the spans
// of only as much of the range as surely fits; the rest of the range is decoded for the
// aggregates and its spans are only counted (dropped_spans()). One rule, one place: a pass the
// drainer built within the room is never refused here, so no span is decoded only to be dropped.
// (With an empty queue once taken as room for any range, a pass larger than the queue was written
// whole and then refused whole: flat out on grown rings the writer received nothing,
// TimelineWriter.ARangeLargerThanTheQueueWritesWhatFitsAndCountsTheRest.) A pass handed over
// otherwise that does not fit loses its spans and gauge samples, never its steps. The aggregates
// are unaffected either way: they are built before this point.
//
// Ordering with snapshots: the backends that take spans take their snapshots on the writer too
// (send_snapshot), after every span drained before it, so they are only ever called from one thread
// and the drainer never waits for the writer: a writer slowed by compression or a slow disk then
// costs the timeline its spans (counted), never the drainer its pace or the aggregates their
// scopes. hold() (tests, benchmarks) delivers everything drained so far, waits until the writer
// has handed it to the backends and called on_timeline_flush, and keeps the writer parked until
// the Hold ends.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <condition_variable>
#include <optional>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <concurrentqueue/concurrentqueue.h>

#include "drain/clock_calibration.hpp"
#include "drain/drainer.hpp"
#include "drain/end_patience.hpp"
#include "drain/timeline_records.hpp"
#include "process/fork_gate.hpp"
#include "process/output_problems.hpp"
#include "ringprof/backend.hpp"
#include "ringprof/timeline_backend.hpp"
#include "timeline/step_intervals.hpp"

namespace ringprof::detail {

// A counter sample from outside the rings (the system-metrics sampler's rows): a name made at run
// time, a moment on the wall clock, a value.
struct CounterSample {
    std::string name;
    std::uint64_t epoch_ns = 0;
    double value = 0;
};

struct TimelineOptions {
    std::uint64_t min_ns = 0;           // shorter scopes stay out of the timeline
    std::uint32_t max_depth = 0;        // keep this many outermost levels; 0: all
    std::size_t queue_spans = 1 << 20;  // spans in flight before the drainer drops
};

class TimelineWriter {
public:
    TimelineWriter(const ClockCalibration& clock, TimelineOptions options);
    ~TimelineWriter();
    TimelineWriter(const TimelineWriter&) = delete;
    TimelineWriter& operator=(const TimelineWriter&) = delete;

    // Before start, or on the drainer thread (the queue orders items per producer only, so
    // a backend added later must come from the thread that sends spans). A backend whose
    // wants_spans() is false is ignored.
    void add_backend(Backend* backend);
    bool has_backends() const { return !backends_.empty(); }
    bool running() const { return running_; }

    // Starts the writer thread; false (one line on stderr, no timeline) if it cannot be created.
    bool start();
    // Delivers everything and joins the writer (after the drainer has stopped).
    void stop();
    // The same, waiting for the writer while it makes progress: false if it has not delivered
    // everything when it stops moving for the patience's bound (blocked in a backend), in which
    // case it still runs and this writer must never be destroyed.
    bool stop_until(const EndPatience& patience);
    // Whether `backend` takes its snapshots on the writer (send_snapshot) rather than from the
    // caller: a backend that wants spans, while the writer runs.
    bool takes_snapshots_of(const Backend& backend) const { return running_ && backend.wants_spans(); }
    // Drainer thread: the timeline backends get `snapshot` on the writer after every span drained
    // so far (and on_timeline_flush just before it). Does not wait; returns a ticket for
    // wait_for_snapshot (0: nothing was sent: the writer is not running, or `skippable` and the
    // writer has not yet taken the last one sent, so a writer behind a periodic flush holds at
    // most one of its snapshots in memory, not one per interval).
    std::uint64_t send_snapshot(std::shared_ptr<const Snapshot> snapshot, bool skippable = false);
    // Any thread but the drainer and the writer: waits until the snapshot of `ticket` was given to
    // every timeline backend (at once for ticket 0).
    void wait_for_snapshot(std::uint64_t ticket);
    // Moves whenever the writer gets on with its work (an item taken, a batch delivered to a
    // backend), never while it idles.
    std::uint64_t progress() const { return progress_.load(std::memory_order_relaxed); }
    // The backend the writer is calling now, if any (named when the end gives up on it).
    const char* calling() const { return calling_.load(std::memory_order_relaxed); }

    // Asked before the drainer decodes a range (drainer thread): how many more spans and gauge
    // samples the queue takes now (it only frees room meanwhile), with the filters set in
    // `limits` for counting those withheld.
    std::size_t span_room(WithheldSpans& limits) const;
    // The drainer's span sink, called after every pass (drainer thread); `withheld`, for a pass
    // that withheld its spans, holds what it counted instead of writing.
    void on_pass(TimelineRecords& raw, const std::vector<SpanThread>& threads, const WithheldSpans* withheld = nullptr);

    // Any thread (the system-metrics sampler): counter samples delivered to every timeline backend's
    // on_counter, after what the queue holds now. Their room is their own (kMaxCountersInFlight),
    // so they never take the room the drainer counted on for a pass: refused whole and counted as
    // dropped spans when it is full (a writer blocked in a backend). Nothing happens unless the
    // writer runs; the caller stops posting before stop().
    static constexpr std::size_t kMaxCountersInFlight = std::size_t{1} << 16;
    void post_counters(std::vector<CounterSample> counters);

    class Hold {
    public:
        explicit Hold(TimelineWriter* w, std::uint64_t ticket) : writer_(w), ticket_(ticket) {}
        Hold(Hold&& o) noexcept : writer_(std::exchange(o.writer_, nullptr)), ticket_(o.ticket_) {}
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;
        Hold& operator=(Hold&&) = delete;
        ~Hold();

    private:
        TimelineWriter* writer_;
        std::uint64_t ticket_;
    };
    // Drainer thread.
    Hold hold();

    // Where backend failures are reported (before start; the session's OutputProblems); unset
    // (a writer without a session): by an OutputProblems of its own.
    using ProblemReporter = std::function<void(const Backend&, const char* stage, const std::exception&)>;
    void set_problem_reporter(ProblemReporter reporter) { reporter_ = std::move(reporter); }

    std::uint64_t dropped_spans() const { return dropped_.load(std::memory_order_relaxed); }
    // Slots of stream memory in items waiting for the writer (the queue's memory, for tests).
    std::size_t queued_slots() const { return queued_slots_.load(std::memory_order_relaxed); }
    std::uint64_t filtered_spans() const { return filtered_.load(std::memory_order_relaxed); }

private:
    struct Item {
        TimelineRecords raw;
        std::vector<std::pair<std::uint32_t, std::string>> names;
        std::vector<CounterSample> counters;
        std::uint64_t horizon = 0;  // spans that began before this can be labeled
        Backend* added = nullptr;
        std::uint64_t barrier = 0;   // nonzero: deliver everything, acknowledge, wait for release
        bool last = false;           // the writer exits after this item
        std::shared_ptr<const Snapshot> snapshot;  // with a barrier: acknowledged without parking
        std::size_t budget = 0;      // spans and gauge samples charged to in_flight_
        std::size_t held_slots = 0;  // the stream's capacity, charged to queued_slots_
    };
    struct Sink {
        Backend* backend;
        TimelineBackend* timeline;  // null for a plain Backend
    };

    // Drainer side.
    // The filters of TimelineOptions as the records carry them (0 depth: no limit).
    std::uint32_t max_depth() const;
    std::uint64_t min_ticks() const;
    void copy_filtered(const TimelineRecords& raw, TimelineRecords& out);
    void hand_over(TimelineRecords& raw, Item item);  // on_pass's part that allocates
    void enqueue(Item item);
    // Either side: an emptied stream back to the pool; when the pool is full, the stream keeps its
    // memory and whoever holds it frees it.
    void recycle(TimelineRecords& stream);
    std::uint64_t enqueue_barrier(bool last, std::shared_ptr<const Snapshot> snapshot = nullptr);
    // Waits for the barrier `ticket` to be acknowledged: false if the writer stopped moving first.
    bool wait_acked(std::uint64_t ticket, const EndPatience& patience);
    void wake_writer();

    // Writer side.
    void loop();
    void process(Item& item);
    // A span of another thread than the stepping one, waiting for its step label.
    struct PendingSpan {
        const Site* site;
        std::uint64_t begin_ticks;
        std::uint64_t end_ticks;
        std::uint32_t tid;
        std::uint32_t depth;
    };
    void take(const TimelineRecord& r);
    void release_pending(std::uint64_t horizon);
    void append(const PendingSpan& s, std::optional<std::int64_t> step);
    void deliver();
    void deliver_counters(const std::vector<CounterSample>& counters);
    void guarded(const Sink& s, const char* stage, const std::function<void()>& fn);

    const ClockCalibration& clock_;
    const TimelineOptions options_;

    // Drainer side state.
    std::vector<Sink> backends_;  // every span backend; the writer keeps its own copy
    std::unordered_map<std::uint32_t, std::string> names_;
    std::uint64_t last_pass_ticks_ = 0;
    std::uint64_t last_send_ticks_ = 0;
    std::uint64_t next_ticket_ = 1;
    std::uint64_t last_snapshot_ticket_ = 0;
    bool running_ = false;

    // Polled, not signalled per item: waking the writer for every pass preempts the drainer on
    // busy machines, so only barriers wake it early.
    // No blocks taken ahead ({0}): the writer is made on the thread starting the session (often
    // a marker's first call), where the default 6 blocks of 32 items per queue cost 20-30 us; the
    // drainer and the writer take blocks as they enqueue.
    moodycamel::ConcurrentQueue<Item> queue_{0};
    moodycamel::ConcurrentQueue<TimelineRecords> free_{0};  // emptied streams, reused
    std::atomic<std::size_t> in_flight_{0};
    std::atomic<std::size_t> counters_in_flight_{0};
    std::atomic<std::size_t> queued_slots_{0};
    std::atomic<std::uint64_t> dropped_{0};
    std::atomic<std::uint64_t> filtered_{0};
    std::atomic<std::uint64_t> progress_{0};
    std::atomic<const char*> calling_{nullptr};

    // Writer side state.
    std::vector<Sink> sinks_;
    OutputProblems own_problems_{""};
    ProblemReporter reporter_;
    StepIntervals steps_;
    std::uint32_t tid_ = 0;             // of the last Thread record taken
    std::optional<std::int64_t> step_;  // and the step that thread is in, if any
    std::vector<PendingSpan> pending_;  // held back until the step horizon passes them
    SpanBatch batch_;
    // Names of posted counters, kept for the writer's life: on_counter takes a name that stays valid,
    // as a site's does (backends cache by its address). A few per core, disk, interface and GPU.
    std::unordered_set<std::string> counter_names_;

    std::mutex mutex_;
    std::condition_variable cv_;
    std::atomic<std::uint64_t> acked_{0};  // written under mutex_
    std::uint64_t released_ = 0;
    bool wake_ = false;
    GatedThread thread_;
};

}  // namespace ringprof::detail
