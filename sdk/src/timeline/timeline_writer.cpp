#include "timeline/timeline_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <system_error>

#include "drain/internal_failures.hpp"
#include "drain/thread_role.hpp"
#include "process/fork_gate.hpp"
#include "record/ring_room.hpp"
#include "ringprof/detail/recorder.hpp"

namespace ringprof::detail {

namespace {
constexpr std::size_t kBatchSpans = 8192;
constexpr std::size_t kFreeVectors = 64;
constexpr double kMaxSendDelayNs = 20e6;  // an idle drainer still advances the step horizon
constexpr auto kIdleWake = std::chrono::milliseconds(100);
constexpr auto kMinPoll = std::chrono::microseconds(500);
constexpr auto kMaxPoll = std::chrono::microseconds(10000);

FailingWork g_failed_hand_over{"handing a pass's spans to the timeline writer"};
FailingWork g_failed_item{"the timeline writer (a batch of spans)"};
}  // namespace

TimelineWriter::TimelineWriter(const ClockCalibration& clock, TimelineOptions options)
    : clock_(clock), options_(options) {}

TimelineWriter::~TimelineWriter() { stop(); }

void TimelineWriter::add_backend(Backend* backend) {
    if (backend == nullptr || !backend->wants_spans()) return;
    const Sink s{backend, dynamic_cast<TimelineBackend*>(backend)};
    backends_.push_back(s);
    if (!running_) {
        sinks_.push_back(s);
        return;
    }
    Item item;
    item.added = backend;
    enqueue(std::move(item));
    wake_writer();
}

bool TimelineWriter::start() {
    if (running_) return true;
    last_pass_ticks_ = slow_ticks();
    try {
        thread_ = GatedThread([this] {
            never_wait_on_this_thread();  // the drainer may be waiting for this thread (a barrier)
            loop();
        });
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "ringprof: cannot start the timeline writer thread (%s): no timeline is written\n",
                     e.what());
        return false;
    }
    running_ = true;
    return true;
}

void TimelineWriter::stop() { stop_until(unbounded_patience()); }

bool TimelineWriter::stop_until(const EndPatience& patience) {
    if (!running_) return true;
    if (!wait_acked(enqueue_barrier(/*last=*/true), patience)) return false;
    thread_.join();
    running_ = false;
    return true;
}

// ---------------------------------------------------------------- drainer side

std::size_t TimelineWriter::span_room(WithheldSpans& limits) const {
    limits.max_depth = max_depth();
    limits.min_ticks = min_ticks();
    const std::size_t in_flight = in_flight_.load(std::memory_order_acquire);
    return in_flight < options_.queue_spans ? options_.queue_spans - in_flight : 0;
}

std::uint32_t TimelineWriter::max_depth() const {
    return options_.max_depth != 0 ? options_.max_depth : ~std::uint32_t{0};
}

std::uint64_t TimelineWriter::min_ticks() const {
    return static_cast<std::uint64_t>(static_cast<double>(options_.min_ns) / clock_.ns_per_tick());
}

void TimelineWriter::on_pass(TimelineRecords& raw, const std::vector<SpanThread>& threads,
                             const WithheldSpans* withheld) {
    if (withheld != nullptr) {
        dropped_.fetch_add(withheld->dropped, std::memory_order_relaxed);
        filtered_.fetch_add(withheld->filtered, std::memory_order_relaxed);
    }
    Item item;
    for (const SpanThread& t : threads) {
        auto [it, inserted] = names_.try_emplace(t.tid, t.name);
        if (inserted || it->second != t.name) {
            it->second = t.name;
            item.names.emplace_back(t.tid, t.name);
        }
    }
    // Every event published before the previous call was decoded by this pass (which started
    // after that call), so spans that began before it can be labeled.
    item.horizon = last_pass_ticks_;
    last_pass_ticks_ = slow_ticks();
    if (raw.empty() && item.names.empty() && clock_.to_ns(last_pass_ticks_ - last_send_ticks_) < kMaxSendDelayNs) {
        return;
    }
    if (!running_) return;
    last_send_ticks_ = last_pass_ticks_;
    try {
        hand_over(raw, std::move(item));
    } catch (const std::exception& e) {
        // Out of memory for the copy or the queue: this pass's spans are lost, counted; the
        // aggregates were built before this point and are whole.
        dropped_.fetch_add(raw.droppable(), std::memory_order_relaxed);
        raw.clear();
        note_internal_failure(g_failed_hand_over, &e);
    }
}

void TimelineWriter::hand_over(TimelineRecords& raw, Item item) {
    TimelineRecords recycled;
    const bool have_recycled = free_.try_dequeue(recycled);
    if (options_.max_depth == 0 && options_.min_ns == 0 && have_recycled && recycled.capacity_slots() >= raw.slots()) {
        // Nothing to filter: the filled vector itself goes to the writer and the drainer goes on
        // with a recycled one of the same capacity (no copy, no regrowth; copying cost the drainer
        // a third of its throughput with every output on, bench_pipeline).
        item.raw.swap(raw);
        raw.swap(recycled);
        raw.clear();
    } else {
        // Copied: the drainer's vector keeps its capacity (regrowing it every pass cost enough
        // page faults to overflow rings in the demo), and the copy is reused memory.
        item.raw.swap(recycled);
        item.raw.reserve_slots(raw.slots());
        copy_filtered(raw, item.raw);
    }
    enqueue(std::move(item));
}

// Filtering here rather than on the writer: two compares per span on the drainer are cheaper
// than shipping every span of a filtered hot loop to another thread.
void TimelineWriter::copy_filtered(const TimelineRecords& raw, TimelineRecords& out) {
    if (options_.max_depth == 0 && options_.min_ns == 0) {
        out.append_all(raw);
        return;
    }
    const std::uint32_t deepest = max_depth();
    const std::uint64_t shortest = min_ticks();
    const std::size_t before = out.records();
    raw.for_each([&](const TimelineRecord& r) {
        const bool scope = r.kind == TimelineRecord::Kind::Span;
        if (scope && (r.depth >= deepest || r.end_ticks - r.begin_ticks < shortest)) return;
        out.append(r);
    });
    filtered_.fetch_add(raw.records() - (out.records() - before), std::memory_order_relaxed);
}

void TimelineWriter::enqueue(Item item) {
    const std::size_t n = item.raw.droppable();
    if (n != 0 && in_flight_.load(std::memory_order_acquire) + n > options_.queue_spans) {
        // The writer is behind: keep the steps (a handful per second) and the Thread records
        // they belong to, in order; lose the spans and gauge samples, counted. The pass's stream
        // goes back to the pool, and what is kept takes only its own few slots: queued behind a
        // writer that does not return, each pass held a whole pass's memory (400 passes of 5,000
        // spans: 64 MB, ABlockedBackendHoldsTheQueueToItsBudgetInMemoryToo).
        dropped_.fetch_add(n, std::memory_order_relaxed);
        const std::size_t kept_records = item.raw.records() - n;
        std::size_t steps = 0;
        TimelineRecords kept;
        kept.reserve_slots(2 * kept_records);  // a kept record takes two slots
        item.raw.for_each([&](const TimelineRecord& r) {
            if (r.kind == TimelineRecord::Kind::Span || r.kind == TimelineRecord::Kind::Gauge) return;
            kept.append(r);
            steps += r.kind != TimelineRecord::Kind::Thread;
        });
        recycle(item.raw);
        item.raw = std::move(kept);
        // Thread records alone say nothing the next pass will not say again.
        if (steps == 0 && item.names.empty()) return;
    }
    item.budget = item.raw.droppable();
    in_flight_.fetch_add(item.budget, std::memory_order_acq_rel);
    item.held_slots = item.raw.capacity_slots();
    queued_slots_.fetch_add(item.held_slots, std::memory_order_relaxed);
    queue_.enqueue(std::move(item));
}

void TimelineWriter::post_counters(std::vector<CounterSample> counters) {
    if (!running_ || counters.empty()) return;
    const std::size_t n = counters.size();
    if (counters_in_flight_.fetch_add(n, std::memory_order_acq_rel) + n > kMaxCountersInFlight) {
        counters_in_flight_.fetch_sub(n, std::memory_order_acq_rel);
        dropped_.fetch_add(n, std::memory_order_relaxed);
        return;
    }
    Item item;
    item.counters = std::move(counters);
    queue_.enqueue(std::move(item));
}

void TimelineWriter::wake_writer() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        wake_ = true;
    }
    cv_.notify_all();
}

std::uint64_t TimelineWriter::enqueue_barrier(bool last, std::shared_ptr<const Snapshot> snapshot) {
    Item item;
    item.barrier = next_ticket_++;
    item.last = last;
    item.snapshot = std::move(snapshot);
    const std::uint64_t ticket = item.barrier;
    enqueue(std::move(item));
    wake_writer();
    return ticket;
}

bool TimelineWriter::wait_acked(std::uint64_t ticket, const EndPatience& patience) {
    std::unique_lock<std::mutex> lock(mutex_);
    ForkGateBlocked blocked;  // waiting for the writer
    return patience.wait(lock, cv_, [&] { return acked_ >= ticket; });
}

std::uint64_t TimelineWriter::send_snapshot(std::shared_ptr<const Snapshot> snapshot, bool skippable) {
    if (!running_) return 0;
    if (skippable && acked_.load(std::memory_order_acquire) < last_snapshot_ticket_) return 0;
    last_snapshot_ticket_ = enqueue_barrier(/*last=*/false, std::move(snapshot));
    return last_snapshot_ticket_;
}

void TimelineWriter::wait_for_snapshot(std::uint64_t ticket) {
    if (ticket != 0) wait_acked(ticket, unbounded_patience());
}

TimelineWriter::Hold TimelineWriter::hold() {
    if (!running_) return Hold(nullptr, 0);
    const std::uint64_t ticket = enqueue_barrier(/*last=*/false);
    wait_acked(ticket, unbounded_patience());
    return Hold(this, ticket);
}

TimelineWriter::Hold::~Hold() {
    if (writer_ == nullptr) return;
    {
        std::lock_guard<std::mutex> lock(writer_->mutex_);
        writer_->released_ = std::max(writer_->released_, ticket_);
    }
    writer_->cv_.notify_all();
}

// ---------------------------------------------------------------- writer side

void TimelineWriter::guarded(const Sink& s, const char* stage, const std::function<void()>& fn) {
    calling_.store(s.backend->name(), std::memory_order_relaxed);
    struct Returned {
        TimelineWriter& w;
        ~Returned() { w.calling_.store(nullptr, std::memory_order_relaxed); }
    } returned{*this};
    try {
        fn();
    } catch (const std::exception& e) {
        if (reporter_) {
            reporter_(*s.backend, stage, e);
        } else {
            own_problems_.report(s.backend->name(), stage, e);
        }
    }
}

void TimelineWriter::take(const TimelineRecord& r) {
    switch (r.kind) {
        case TimelineRecord::Kind::Thread:
            tid_ = r.tid();
            step_ = r.thread_step();
            break;
        case TimelineRecord::Kind::Span:
            if (step_.has_value()) {
                append(PendingSpan{r.site, r.begin_ticks, r.end_ticks, tid_, r.depth},
                       step_);  // its own thread's step: exact
            } else {
                pending_.push_back(PendingSpan{r.site, r.begin_ticks, r.end_ticks, tid_, r.depth});
            }
            break;
        case TimelineRecord::Kind::StepBegin:
            steps_.open(r.begin_ticks, r.step, tid_, r.mode);
            break;
        case TimelineRecord::Kind::StepEnd:
            steps_.close(r.begin_ticks, r.end_ticks, tid_, r.mode);
            append(PendingSpan{r.step_site(), r.begin_ticks, r.end_ticks, tid_, r.depth}, r.step);
            break;
        case TimelineRecord::Kind::Gauge: {
            const std::uint64_t at = clock_.to_epoch_ns(r.begin_ticks);
            for (const Sink& s : sinks_) {
                if (s.timeline != nullptr)
                    guarded(s, "counter", [&] { s.timeline->on_counter(r.site->name, at, tid_, r.value()); });
            }
            break;
        }
    }
}

void TimelineWriter::deliver_counters(const std::vector<CounterSample>& counters) {
    for (const CounterSample& c : counters) {
        const char* name = counter_names_.insert(c.name).first->c_str();
        for (const Sink& s : sinks_) {
            if (s.timeline != nullptr)
                guarded(s, "counter", [&] { s.timeline->on_counter(name, c.epoch_ns, 0, c.value); });
        }
    }
}

void TimelineWriter::release_pending(std::uint64_t horizon) {
    std::size_t kept = 0;
    for (const PendingSpan& p : pending_) {
        if (p.begin_ticks < horizon) {
            append(p, steps_.step_at(p.begin_ticks));
        } else {
            pending_[kept++] = p;
        }
    }
    pending_.resize(kept);
}

void TimelineWriter::append(const PendingSpan& p, std::optional<std::int64_t> step) {
    Span s;
    s.site = p.site;
    s.name = p.site != nullptr ? p.site->name : "";
    s.begin_ns = clock_.to_epoch_ns(p.begin_ticks);
    s.end_ns = clock_.to_epoch_ns(p.end_ticks);
    s.tid = p.tid;
    s.depth = p.depth;
    s.has_step = step.has_value();
    s.step = step.value_or(-1);
    batch_.spans.push_back(s);
    if (batch_.spans.size() >= kBatchSpans) deliver();
}

void TimelineWriter::deliver() {
    if (batch_.spans.empty()) return;
    for (const Sink& s : sinks_) {
        guarded(s, "spans", [&] { s.backend->on_spans(batch_); });
        progress_.fetch_add(1, std::memory_order_relaxed);  // not the idle calls: they are no work done
    }
    batch_.spans.clear();
}

void TimelineWriter::process(Item& item) {
    // The item's share of the queue is given back however processing ends (a failure too).
    struct Settle {
        TimelineWriter& w;
        const Item& item;
        ~Settle() {
            if (item.budget != 0) w.in_flight_.fetch_sub(item.budget, std::memory_order_acq_rel);
            if (!item.counters.empty())
                w.counters_in_flight_.fetch_sub(item.counters.size(), std::memory_order_acq_rel);
            w.queued_slots_.fetch_sub(item.held_slots, std::memory_order_relaxed);
        }
    } settle{*this, item};
    if (item.added != nullptr) sinks_.push_back(Sink{item.added, dynamic_cast<TimelineBackend*>(item.added)});
    for (const Sink& s : sinks_) {
        if (s.timeline == nullptr) continue;
        for (const auto& thread : item.names) {
            // Structured bindings cannot be captured by a lambda before C++20.
            guarded(s, "thread name", [&] { s.timeline->on_thread_name(thread.first, thread.second); });
        }
    }
    if (!item.counters.empty()) deliver_counters(item.counters);
    item.raw.for_each([this](const TimelineRecord& r) { take(r); });
    release_pending(item.barrier != 0 ? StepIntervals::kOpen : item.horizon);
    if (item.barrier != 0 || batch_.spans.size() >= kBatchSpans / 8) deliver();
    recycle(item.raw);
}

void TimelineWriter::recycle(TimelineRecords& stream) {
    if (stream.capacity_slots() != 0 && free_.size_approx() < kFreeVectors) {
        stream.clear();
        free_.enqueue(std::move(stream));
    }
}

void TimelineWriter::loop() {
    take_role(ThreadRole::TimelineWriter);
    auto poll = std::chrono::duration_cast<std::chrono::microseconds>(kMinPoll);
    auto last_tick = std::chrono::steady_clock::now();
    for (;;) {
        fork_pause_point();
        Item item;
        if (!queue_.try_dequeue(item)) {
            survive(g_failed_item, [&] { deliver(); });  // nothing more is coming soon: do not sit on a partial batch
            // The drainer sends a near-empty item every few ms even when the program is quiet,
            // so time-based work is driven by the clock, not by the queue being empty.
            const auto now = std::chrono::steady_clock::now();
            if (now - last_tick >= kIdleWake) {
                last_tick = now;
                const std::uint64_t epoch = ClockCalibration::epoch_ns();
                for (const Sink& s : sinks_) {
                    if (s.timeline != nullptr) guarded(s, "idle", [&] { s.timeline->on_idle(epoch); });
                }
            }
            std::unique_lock<std::mutex> lock(mutex_);
            ForkGateBlocked idle;
            cv_.wait_for(lock, poll, [&] { return wake_; });
            wake_ = false;
            poll = std::min(poll * 2, std::chrono::duration_cast<std::chrono::microseconds>(kMaxPoll));
            continue;
        }
        poll = std::chrono::duration_cast<std::chrono::microseconds>(kMinPoll);
        progress_.fetch_add(1, std::memory_order_relaxed);
        if (!survive(g_failed_item, [&] { process(item); })) {
            // The spans of the batch being built are lost, counted (the next batch starts clean).
            dropped_.fetch_add(batch_.spans.size(), std::memory_order_relaxed);
            batch_.spans.clear();
        }
        if (item.barrier == 0) continue;
        // stop() runs on another thread than the drainer, and the queue orders items per producer
        // only: the drainer's last items, its final snapshot among them, may come after this
        // barrier. Their spans are delivered, then their snapshots (a flame page is written from
        // its final snapshot: without this, now and then it was not written at all).
        std::vector<std::shared_ptr<const Snapshot>> late_snapshots;
        if (item.last) {
            Item rest;
            while (queue_.try_dequeue(rest)) {
                survive(g_failed_item, [&] { process(rest); });
                if (rest.snapshot != nullptr) late_snapshots.push_back(std::move(rest.snapshot));
            }
            survive(g_failed_item, [&] {
                release_pending(StepIntervals::kOpen);
                deliver();
            });
        }
        TimelineStatus status;
        status.dropped_spans = dropped_spans();
        status.filtered_spans = filtered_spans();
        status.now_epoch_ns = ClockCalibration::epoch_ns();
        for (const Sink& s : sinks_) {
            if (s.timeline != nullptr) guarded(s, "flush", [&] { s.timeline->on_timeline_flush(status); });
        }
        if (item.snapshot != nullptr) late_snapshots.push_back(item.snapshot);
        for (const auto& snapshot : late_snapshots) {
            for (const Sink& s : sinks_) guarded(s, "write", [&] { s.backend->on_snapshot(*snapshot); });
        }
        std::unique_lock<std::mutex> lock(mutex_);
        acked_.store(item.barrier, std::memory_order_release);
        cv_.notify_all();
        if (item.last) return;
        if (item.snapshot != nullptr) continue;
        // Parked: the holder uses the backends (snapshots) until it releases this ticket.
        ForkGateBlocked parked;
        cv_.wait(lock, [&] { return released_ >= item.barrier; });
    }
}

}  // namespace ringprof::detail
