#include "drain/drainer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <system_error>

#include "drain/internal_failures.hpp"
#include "drain/thread_role.hpp"
#include "process/fork_gate.hpp"
#include "process/last_thread.hpp"
#include "record/recording_settings.hpp"
#include "record/ring_registry.hpp"
#include "record/ring_room.hpp"
#include "record/slow_path_counts.hpp"

namespace ringprof::detail {

namespace {
// Polling a ring's head while its producer writes makes the head's cache line bounce between
// cores on every event, which costs the producer more than the event itself. So the drainer
// reads in large batches: it sleeps between passes unless some ring is filling up, and a
// producer whose ring passes a quarter full rings the doorbell (ring_room.cpp), so a sleep never
// outlasts a filling ring.
constexpr auto kBusySleep = std::chrono::microseconds(100);
// While every ring fills slowly for its size (a hot thread in a 4 MiB segment flat out takes
// ~1 ms to fill a quarter), the drainer wakes ten times less often: each wake on a core a
// producer runs on preempts it. Measured (bench_overhead, scope and floor timed in pairs, load
// 16-20): two producers on two cores 1.14-1.23x the floor with 100 us only, 1.10-1.13x with this,
// as with the drainer paused; producer and drainer on one core 1.29-1.36x -> 1.10-1.13x. A ring
// filling faster keeps the 100 us cadence (a small first segment would otherwise cross its
// quarter mark, and wake the drainer with a system call, far more often).
constexpr auto kCalmSleep = std::chrono::microseconds(1000);
constexpr auto kMaxSleep = std::chrono::microseconds(2000);
constexpr std::uint64_t kUrgentFillDivisor = 4;  // a ring a quarter full is read again at once
// How often an idle drainer looks whether the program has any thread left (last_thread.hpp): a
// process whose last thread ended lingers this long at most, for one read of /proc a time.
constexpr auto kLastThreadCheck = std::chrono::milliseconds(250);

// How many events of a range surely make at most `room` spans and gauge samples, `depth` scopes
// being open where it starts: a span closes a scope opened before the range or in it, a gauge
// sample takes two events, so n events make at most (n + depth) / 2 of them.
std::uint64_t events_within(std::size_t room, std::uint32_t depth) {
    const std::uint64_t twice = 2 * static_cast<std::uint64_t>(room);
    return twice > depth ? twice - depth : 0;
}

FailingWork g_failed_pass{"a drainer pass (reading the rings)"};

// The drainer whose thread runs, for drain_running(); held while a caller waits on it, so that it
// is not stopped and destroyed meanwhile. Never destroyed: a module may unload during exit.
std::mutex& running_mutex() {
    static auto* m = new std::mutex;
    return *m;
}
Drainer* g_running = nullptr;
FailingWork g_failed_command{"a snapshot or command on the drainer"};
}  // namespace

Drainer::Drainer(ClockCalibration& clock) : clock_(clock), aggregator_(clock) {}

Drainer::~Drainer() { stop(); }

void Drainer::set_periodic(std::uint32_t interval_ms, PeriodicTask task) {
    periodic_ms_ = interval_ms;
    periodic_ = std::move(task);
}

bool Drainer::start() {
    for (ThreadRing* ring : RingRegistry::instance().take_parked()) {
        tracks_.push_back(new ThreadTrack(ring, ThreadTrack::CarriedOver{}));
        ring->ring().set_drained(true);
    }
    // Mapped here (microseconds), so a thread recording from the first moment finds the pool
    // stocked; faulted in on the drainer thread, with the clock's first baseline: those take
    // milliseconds the thread starting the session (often a marker's first call) would wait.
    refill_hot_segments_for_session(/*faulted=*/false);
    drainer_started();
    try {
        thread_ = GatedThread([this] {
            never_wait_on_this_thread();
            size_decoders();
            prefault_hot_segments();
            clock_.complete_first_segment();  // no event is converted before the clock has it
            if (first_task_) survive(g_failed_command, [&] { first_task_(*this); });
            loop();
        });
        std::lock_guard<std::mutex> lock(running_mutex());
        g_running = this;
        watch_for_exit();
    } catch (const std::system_error& e) {
        // No drainer: nobody reads the rings, so nobody may wait for room in them either.
        std::fprintf(stderr, "ringprof: cannot start the drainer thread (%s): recording is off\n", e.what());
        drainer_stopped();
        park_tracks();
        return false;
    }
    return true;
}

// The pool holds two hot segments, and one more for each thread about to leave its first
// segment (found more than a quarter full), kept for a second after the demand that raised it:
// a pool of threads starting together takes them all at once, and a thread that finds none
// maps its own, which costs it microseconds instead of a pointer exchange.
void Drainer::refill_hot_segments_for_session(bool faulted) {
    constexpr auto kKeepRaisedPool = std::chrono::seconds(1);
    const auto now = std::chrono::steady_clock::now();
    const int demand = kBaseHotSegments + static_cast<int>(std::min<std::uint64_t>(growing_rings_, kMaxHotSegments));
    if (demand >= hot_wanted_ || now - hot_raised_at_ > kKeepRaisedPool) {
        if (demand >= hot_wanted_) hot_raised_at_ = now;
        hot_wanted_ = demand;
    }
    const std::uint64_t max_events = ring_capacity_for_new_threads();
    if (max_events > kFirstSegmentBytes / sizeof(Event)) {
        const std::uint64_t capacity = std::min(max_events, kHotSegmentBytes / sizeof(Event));
        if (faulted)
            refill_hot_segments(capacity, hot_wanted_);
        else
            stock_hot_segments_unfaulted(capacity, hot_wanted_);
    }
}

void Drainer::stop() { stop_until(unbounded_patience()); }

bool Drainer::stop_until(const EndPatience& patience) {
    if (!thread_.joinable()) return true;
    {
        std::lock_guard<std::mutex> lock(running_mutex());
        if (g_running == this) g_running = nullptr;
    }
    {
        std::unique_lock<std::mutex> lock(mutex_);
        stopping_ = true;
        ring_doorbell();
        if (!patience.wait(lock, done_, [&] { return finished_; })) {
            abandoned_.store(true);
            return false;
        }
    }
    thread_.join();
    drainer_stopped();
    park_tracks();
    return true;
}

bool Drainer::drain_running(std::chrono::milliseconds still) {
    // Held only briefly by start and stop, and by one unloading module at a time (the loader runs
    // one dlclose's destructors at a time).
    std::lock_guard<std::mutex> lock(running_mutex());
    if (g_running == nullptr) return true;
    Drainer* const d = g_running;
    // run_until drains every ring before it runs the (empty) command; waited for while the
    // drainer makes progress, as the session's end waits.
    return d->run_until([](Drainer&) {}, EndPatience{still, [d] { return d->progress(); }});
}

void Drainer::park_tracks() {
    std::vector<ThreadRing*> live;
    for (ThreadTrack* t : tracks_) {
        live.push_back(t->ring);
        delete t;
    }
    tracks_.clear();
    RingRegistry::instance().park(std::move(live));
}

void Drainer::run(const std::function<void(Drainer&)>& fn) {
    if (std::this_thread::get_id() == thread_.get_id()) {
        drain_all();
        fn(*this);
        return;
    }
    // Not owned: this call waits for it to finish.
    submit(std::shared_ptr<const std::function<void(Drainer&)>>(std::shared_ptr<void>(), &fn),
           unbounded_patience());
}

bool Drainer::run_until(const std::function<void(Drainer&)>& fn, const EndPatience& patience) {
    if (std::this_thread::get_id() == thread_.get_id()) {
        run(fn);
        return true;
    }
    if (submit(std::make_shared<const std::function<void(Drainer&)>>(fn), patience)) return true;
    abandoned_.store(true);
    return false;
}

bool Drainer::submit(std::shared_ptr<const std::function<void(Drainer&)>> fn, const EndPatience& patience) {
    std::unique_lock<std::mutex> lock(mutex_);
    // Nothing would run it: the drainer never started, or the caller raced with the session's end.
    if (!thread_.joinable() || stopping_) return true;
    const std::uint64_t ticket = next_ticket_++;
    commands_.push_back(Command{std::move(fn), ticket});
    ring_doorbell();
    return patience.wait(lock, done_, [&] { return completed_ticket_ >= ticket; });
}

void Drainer::adopt_new_rings() {
    // Rings a drainer the end gave up on handed back after this session started.
    if (RingRegistry::instance().has_parked()) {
        for (ThreadRing* parked : RingRegistry::instance().take_parked()) {
            tracks_.push_back(new ThreadTrack(parked, ThreadTrack::CarriedOver{}));
            parked->ring().set_drained(true);
        }
    }
    ThreadRing* ring = nullptr;
    while (RingRegistry::instance().next_announced(ring)) tracks_.push_back(new ThreadTrack(ring));
}

std::uint64_t Drainer::pass() {
    // Given up on: every ring read or adopted now may hold a later session's scopes (a command or
    // periodic task that returns late still drains before the loop sees the flag).
    if (abandoned_.load()) return 0;
    adopt_new_rings();
    const auto now = std::chrono::steady_clock::now();
    const double since_ns =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_pass_).count());
    last_pass_ = now;
    std::vector<std::uint64_t>& unread = unread_scratch_;
    const std::size_t shares = shares_for_pass(unread);
    cut_into_shares(shares, unread);
    if (shares == 1) {
        read_share(shares_[0], 0, since_ns);
    } else {
        aggregator_.set_parallel(true);
        decode_pool_.run(shares, [&](std::size_t k) {
            survive(g_failed_pass, [&] { read_share(shares_[k], k, since_ns); });
        });
        aggregator_.set_parallel(false);
    }
    // Joined in track order, as one thread reading every ring in turn would have made them.
    std::uint64_t events = 0;
    urgent_ = false;
    calm_ = true;
    growing_rings_ = 0;
    bool any_withheld = false;
    withheld_ = shares_[0].withheld;
    for (std::size_t k = 0; k < shares; ++k) {
        PassShare& share = shares_[k];
        if (k > 0) {
            if (share.spans != nullptr) spans_.append_all(*share.spans);
            withheld_.dropped += share.withheld.dropped;
            withheld_.filtered += share.withheld.filtered;
        }
        span_threads_.insert(span_threads_.end(), share.span_threads.begin(), share.span_threads.end());
        for (const auto& [ring, was_unread] : share.unread) grow_if_filling(*ring, was_unread);
        events += share.events;
        urgent_ = urgent_ || share.urgent;
        calm_ = calm_ && share.calm;
        any_withheld = any_withheld || share.any_withheld;
    }
    // Ends made elsewhere in this pass, of scopes of threads read before it; then the exited
    // threads go, once every end of their scopes made elsewhere has been read: those are noted
    // in other threads' rings, which may be read after their own or in a later pass (counted on
    // their ring: ThreadTrack::every_note_read), and may still be made after they exited while
    // another thread holds one of their scopes (ThreadRing::held_elsewhere).
    aggregator_.settle_closed_elsewhere(tracks_);
    for (std::size_t k = 0; k < tracks_.size();) {
        ThreadTrack& track = *tracks_[k];
        if (track.read_to_exit && !track.ring->held_elsewhere() && track.every_note_read()) {
            aggregator_.retire(track);
            keep_counts_of_exited(track);
            retired_counts_ += track.counts();
            RingRegistry::instance().recycle(track.ring);
            delete tracks_[k];
            tracks_.erase(tracks_.begin() + static_cast<std::ptrdiff_t>(k));  // the others keep their order
            continue;
        }
        ++k;
    }
    // Called even after an empty pass: the sink's step horizon advances with every pass.
    if (span_sink_) span_sink_(spans_, any_withheld ? &withheld_ : nullptr);
    spans_.clear();
    span_threads_.clear();
    refill_hot_segments_for_session();
    drainer_pass_done();
    return events;
}

void Drainer::size_decoders() {
    decoders_forced_ = drainers_setting_ != 0;
    // A decoder per four cores: the others are the recording threads'. Counting the cores reads a
    // file (10-20 us), so not on the thread starting the session.
    max_decoders_ = decoders_forced_ ? drainers_setting_
                                     : std::clamp<std::size_t>(std::thread::hardware_concurrency() / 4, 1, 8);
    aggregator_.set_decoders(max_decoders_);
    shares_.resize(max_decoders_);
}

// One thread, unless the pass has more to read than one decodes in about a quarter of a
// millisecond (at ~200 M events per second) spread over several busy rings: a helper's wake-up
// costs tens of microseconds, and a ring is never split. A forced setting splits any pass with
// two rings to read, so its tests exercise the split on any machine.
std::size_t Drainer::shares_for_pass(std::vector<std::uint64_t>& unread) const {
    unread.resize(tracks_.size());
    if (max_decoders_ == 1) return 1;
    constexpr std::uint64_t kEventsPerShare = 1 << 16;
    constexpr std::uint64_t kBusyRing = 1 << 12;
    std::uint64_t total = 0;
    std::size_t busy = 0;
    for (std::size_t k = 0; k < tracks_.size(); ++k) {
        const Ring& ring = tracks_[k]->ring->ring();
        unread[k] = ring.readable_head() - ring.tail();
        total += unread[k];
        busy += unread[k] >= (decoders_forced_ ? 1 : kBusyRing) ? 1 : 0;
    }
    std::size_t shares = std::min(max_decoders_, busy);
    if (!decoders_forced_) shares = std::min<std::uint64_t>(shares, total / kEventsPerShare);
    return std::max<std::size_t>(shares, 1);
}

// Contiguous runs of tracks with about as much to read each.
void Drainer::cut_into_shares(std::size_t shares, const std::vector<std::uint64_t>& unread) {
    TimelineRecords* const spans = span_sink_ ? &spans_ : nullptr;
    if (shares == 1) {
        PassShare& only = shares_[0];
        only.first = 0;
        only.end = tracks_.size();
        only.spans = spans;
        only.fixed_room = false;
        only.withheld = WithheldSpans{};
    } else {
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < tracks_.size(); ++k) total += unread[k] + 1;
        std::uint64_t sum = 0;
        std::size_t k = 0;
        for (std::size_t j = 0; j < shares; ++j) {
            PassShare& share = shares_[j];
            share.first = k;
            const std::uint64_t upto = total * (j + 1) / shares;
            // Each share takes at least one track and leaves one for each share after it.
            while (k < tracks_.size() - (shares - 1 - j) && (k == share.first || sum + unread[k] + 1 <= upto)) {
                sum += unread[k] + 1;
                ++k;
            }
            if (j + 1 == shares) k = tracks_.size();
            share.end = k;
            share.withheld = WithheldSpans{};
            share.fixed_room = spans != nullptr;
            // The writer's room now, in equal parts: the shares' spans reach it together.
            share.room = spans != nullptr ? span_room_(share.withheld) / shares : 0;
            share.spans = spans == nullptr ? nullptr : j == 0 ? spans : &share.own_spans;
            if (j > 0) share.own_spans.clear();
        }
    }
    for (std::size_t j = 0; j < shares; ++j) {
        PassShare& share = shares_[j];
        share.span_threads.clear();
        share.unread.clear();
        share.events = 0;
        share.urgent = false;
        share.calm = true;
        share.any_withheld = false;
    }
}

void Drainer::read_share(PassShare& share, std::size_t decoder, double since_ns) {
    TimelineRecords* const spans = share.spans;
    for (std::size_t k = share.first; k < share.end; ++k) {
        ThreadTrack& track = *tracks_[k];
        Ring& ring = track.ring->ring();
        // Read the retired flag before the head: every event of an exited thread is then below it.
        const bool retired = track.ring->retired();
        const std::size_t spans_before = spans != nullptr ? spans->slots() : 0;
        std::uint64_t tail = 0, head = 0, stop = 0, read = 0;
        do {  // segment by segment, freeing each one the producer has left
            tail = ring.tail();
            head = ring.readable_head();
            if (spans == nullptr) {
                stop = aggregator_.decode(track, tail, head, nullptr, nullptr, decoder);
            } else {
                // The spans of as much of the range as surely fits the writer's queue are written,
                // the rest withheld (decoded for the aggregates and counted).
                const std::size_t room = share.fixed_room ? share.room : span_room_(share.withheld);
                const std::size_t queued = spans->droppable();
                const std::uint64_t fits = events_within(room > queued ? room - queued : 0, track.depth());
                const std::uint64_t split = head - tail <= fits ? head : tail + fits;
                stop = split > tail ? aggregator_.decode(track, tail, split, spans, nullptr, decoder) : tail;
                if (stop >= split && stop < head) {  // (a decode that stopped early stops here too)
                    stop = aggregator_.decode(track, stop, head, spans, &share.withheld, decoder);
                    share.any_withheld = true;
                }
            }
            ring.release(stop);
            share.events += stop - tail;
            read += stop - tail;
            share.urgent = share.urgent || (head - tail) * kUrgentFillDivisor >= ring.reading_capacity();
        } while (stop == head && ring.next_segment());
        // At the rate since the last pass, would a calm sleep take it past a quarter?
        const double calm_ns = std::chrono::duration<double, std::nano>(kCalmSleep).count();
        share.calm = share.calm && static_cast<double>(read) * calm_ns * kUrgentFillDivisor <
                                       static_cast<double>(ring.capacity()) * since_ns;
        if (spans != nullptr && spans->slots() != spans_before) {
            share.span_threads.push_back(SpanThread{track.tid, track.ring->thread_name()});
        }
        track.blocked_passes = stop < head ? track.blocked_passes + 1 : 0;
        share.unread.emplace_back(&ring, head - tail);
        track.read_to_exit = retired && stop == head;
    }
}

// A ring more than a quarter full is about to grow. In its first segment it will take a hot
// segment from the pool (counted, so the pool holds enough); after that, the next, 4x bigger
// segment is allocated and pre-faulted here, so the producer moves on to it with one pointer
// exchange instead of mapping it itself.
void Drainer::grow_if_filling(Ring& ring, std::uint64_t was_unread) {
    const std::uint64_t cap = ring.capacity();
    if (cap >= ring.max_capacity() || ring.has_spare() || was_unread * kUrgentFillDivisor < cap) return;
    if (!segments_prepared_ahead()) return;
    if (cap * sizeof(Event) <= kFirstSegmentBytes) {
        ++growing_rings_;
        return;
    }
    RingSegment* s = allocate_segment(next_segment_capacity(cap, ring.max_capacity()));
    if (s != nullptr && !ring.offer_segment(s)) free_segment(s);
}

void Drainer::drain_all() {
    clock_.refresh();
    // Three passes: a thread blocked on an adopted context finds the capture by the third
    // (see Aggregator::decode). Bounded, so a producer running flat out cannot hold a flush up.
    for (int i = 0; i < 3; ++i) pass();
}

void Drainer::fill(Snapshot& snapshot) const {
    aggregator_.fill(snapshot, tracks_);
    ThreadInfo totals;
    set_ring_counts(totals, retired_counts_, clock_);
    for (const ThreadInfo& t : snapshot.threads) add_ring_counts(totals, t);
    snapshot.dropped = totals.dropped + ringless_drops() + signal_handler_drops();
    snapshot.waits = totals.waits;
    snapshot.wait_ns = totals.wait_ns;
    snapshot.growths = totals.growths;
    snapshot.growth_ns = totals.growth_ns;
    // Already in the totals above.
    snapshot.threads.insert(snapshot.threads.end(), exited_with_counts_.begin(), exited_with_counts_.end());
}

std::vector<FunctionStats> Drainer::live_thread_stats(std::uint32_t tid) const {
    for (const ThreadTrack* track : tracks_) {
        // A thread id is reused once its thread has exited; a running thread's ring is not retired.
        if (track->tid == tid && !track->ring->retired()) return aggregator_.thread_stats(*track);
    }
    return {};
}

// An exited thread that recorded, dropped or waited stays listed with its own tree (its time is
// in the process tree already), so per-thread counts and views survive the thread. Bounded: the
// first kMaxExitedListed are kept one by one, later ones summed into one entry, so a pool that
// churns through thousands of short-lived threads costs one tree, not thousands.
void Drainer::keep_counts_of_exited(const ThreadTrack& track) {
    constexpr std::size_t kMaxExitedListed = 64;
    TimerNode tree = aggregator_.thread_tree(track);
    const RingCounts counts = track.counts();
    if (tree.children.empty() && counts.dropped == 0 && counts.waits == 0 && counts.growths == 0) return;
    ThreadInfo info;
    info.tree = std::move(tree);
    info.tid = track.tid;
    info.name = track.ring->thread_name();
    set_ring_counts(info, counts, clock_);
    info.exited = true;
    if (exited_with_counts_.size() < kMaxExitedListed) {
        exited_with_counts_.push_back(std::move(info));
        return;
    }
    if (exited_with_counts_.size() == kMaxExitedListed) {
        ThreadInfo rest;
        rest.exited = true;
        exited_with_counts_.push_back(std::move(rest));
    }
    ThreadInfo& rest = exited_with_counts_.back();
    rest.tree.merge(info.tree, /*parallel=*/exited_folded_ > 0);  // fed by several threads
    add_ring_counts(rest, info);
    rest.name = "later exited threads (" + std::to_string(++exited_folded_) + ")";
}

void Drainer::reset_aggregates() {
    aggregator_.reset(tracks_);
    retired_counts_ = RingCounts{};
    exited_with_counts_.clear();
    exited_folded_ = 0;
    for (ThreadTrack* t : tracks_) t->counted_before = t->ring->ring().counts();
}

void Drainer::run_commands() {
    std::vector<Command> batch;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(commands_);
    }
    if (batch.empty()) return;
    survive(g_failed_pass, [&] { drain_all(); });
    for (const Command& c : batch) {
        survive(g_failed_command, [&] { (*c.fn)(*this); });
        progress_.fetch_add(1, std::memory_order_relaxed);
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        completed_ticket_ = std::max(completed_ticket_, batch.back().ticket);
    }
    done_.notify_all();
}

void Drainer::loop() {
    take_role(ThreadRole::Drainer);
    auto sleep = kBusySleep;
    auto next_periodic = std::chrono::steady_clock::now() + std::chrono::milliseconds(periodic_ms_);
    auto next_last_thread_check = std::chrono::steady_clock::now() + kLastThreadCheck;
    for (;;) {
        fork_pause_point();
        if (abandoned_.load()) {
            // The end went on without this drainer while it was blocked: whatever the rings hold
            // now may be a later session's, so they go back unread.
            decode_pool_.stop();
            park_tracks();
            std::lock_guard<std::mutex> lock(mutex_);
            finished_ = true;
            thread_.detach();  // nobody joins a drainer given up on
            done_.notify_all();
            return;
        }
        clock_.refresh();  // one tick read unless the calibration's baseline has doubled
        std::uint64_t events = 0;
        survive(g_failed_pass, [&] { events = pass(); });
        const bool calm = calm_;  // of this pass, not of the drains commands make right after it
        if (events != 0) progress_.fetch_add(1, std::memory_order_relaxed);
        run_commands();
        if (periodic_ms_ != 0 && std::chrono::steady_clock::now() >= next_periodic) {
            survive(g_failed_command, [&] {
                drain_all();
                periodic_(*this);
            });
            next_periodic = std::chrono::steady_clock::now() + std::chrono::milliseconds(periodic_ms_);
        }
        // Read before looking for work: a ring after this makes the sleep return at once.
        const std::uint32_t seen = doorbell();
        {
            std::unique_lock<std::mutex> lock(mutex_);
            if (stopping_ && !abandoned_.load()) {
                lock.unlock();
                survive(g_failed_pass, [&] { drain_all(); });
                progress_.fetch_add(1, std::memory_order_relaxed);
                run_commands();
                decode_pool_.stop();
                lock.lock();
                finished_ = true;
                done_.notify_all();
                return;
            }
            if (urgent_ || !commands_.empty()) continue;
        }
        sleep = events != 0 ? (calm ? kCalmSleep : kBusySleep)
                            : std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(kMaxSleep));
        if (events == 0 && std::chrono::steady_clock::now() >= next_last_thread_check) {
            next_last_thread_check = std::chrono::steady_clock::now() + kLastThreadCheck;
            if (only_ringprofs_threads_left()) exit_for_the_programs_last_thread();
        }
        ForkGateBlocked asleep;
        sleep_until_rung(seen, sleep);
    }
}

}  // namespace ringprof::detail
