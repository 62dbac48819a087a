#include "drainer.hpp"

#include <algorithm>
#include <chrono>

#include "ring_registry.hpp"
#include "thread_role.hpp"

namespace ringprof::detail {

namespace {
// Polling a ring's head while its producer writes makes the head's cache line bounce between
// cores on every event, which costs the producer more than the event itself. So the drainer
// reads in large batches: it sleeps between passes unless some ring is filling up.
constexpr auto kBusySleep = std::chrono::microseconds(100);
constexpr auto kMaxSleep = std::chrono::microseconds(2000);
constexpr std::uint64_t kUrgentFillDivisor = 4;  // a ring a quarter full is read again at once
}  // namespace

Drainer::Drainer(ClockCalibration& clock) : clock_(clock), aggregator_(clock) {}

Drainer::~Drainer() { stop(); }

void Drainer::set_periodic(std::uint32_t interval_ms, PeriodicTask task) {
    periodic_ms_ = interval_ms;
    periodic_ = std::move(task);
}

void Drainer::start() {
    for (ThreadRing* ring : RingRegistry::instance().take_parked()) {
        tracks_.push_back(new ThreadTrack(ring, ring->ring().dropped()));
    }
    thread_ = std::thread([this] { loop(); });
}

void Drainer::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
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
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_) return;  // nothing would run it: the caller raced with the session's end
    const std::uint64_t ticket = next_ticket_++;
    commands_.push_back(Command{&fn, ticket});
    wake_.notify_all();
    done_.wait(lock, [&] { return completed_ticket_ >= ticket; });
}

void Drainer::adopt_new_rings() {
    ThreadRing* ring = nullptr;
    while (RingRegistry::instance().next_announced(ring)) tracks_.push_back(new ThreadTrack(ring, 0));
}

std::uint64_t Drainer::pass() {
    adopt_new_rings();
    std::uint64_t events = 0;
    urgent_ = false;
    std::vector<RawSpan>* spans = span_sink_ ? &spans_ : nullptr;
    for (std::size_t k = 0; k < tracks_.size();) {
        ThreadTrack& track = *tracks_[k];
        Ring& ring = track.ring->ring();
        // Read the retired flag before the head: every event of an exited thread is then below it.
        const bool retired = track.ring->retired();
        const std::uint64_t tail = ring.tail();
        const std::uint64_t head = ring.readable_head();
        const std::size_t spans_before = spans_.size();
        const std::uint64_t stop = aggregator_.decode(track, tail, head, spans);
        if (spans_.size() != spans_before) span_threads_.push_back(SpanThread{track.tid, track.ring->thread_name()});
        ring.release(stop);
        track.blocked_passes = stop < head ? track.blocked_passes + 1 : 0;
        events += stop - tail;
        urgent_ = urgent_ || (head - tail) * kUrgentFillDivisor >= ring.capacity();
        if (retired && stop == head) {
            aggregator_.retire(track);
            retired_dropped_ += track.dropped();
            RingRegistry::instance().recycle(track.ring);
            delete tracks_[k];
            tracks_[k] = tracks_.back();
            tracks_.pop_back();
            continue;
        }
        ++k;
    }
    // Called even after an empty pass: the sink's step horizon advances with every pass.
    if (span_sink_) span_sink_(spans_);
    spans_.clear();
    span_threads_.clear();
    return events;
}

void Drainer::drain_all() {
    clock_.refresh();
    // Three passes: a thread blocked on an adopted context finds the capture by the third
    // (see Aggregator::decode). Bounded, so a producer running flat out cannot hold a flush up.
    for (int i = 0; i < 3; ++i) pass();
}

void Drainer::fill(Snapshot& snapshot) const {
    aggregator_.fill(snapshot, tracks_);
    snapshot.dropped = retired_dropped_;
    for (const ThreadInfo& t : snapshot.threads) snapshot.dropped += t.dropped;
}

void Drainer::reset_aggregates() {
    aggregator_.reset(tracks_);
    retired_dropped_ = 0;
    for (ThreadTrack* t : tracks_) t->dropped_before = t->ring->ring().dropped();
}

void Drainer::run_commands() {
    std::vector<Command> batch;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(commands_);
    }
    if (batch.empty()) return;
    drain_all();
    for (const Command& c : batch) (*c.fn)(*this);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        completed_ticket_ = std::max(completed_ticket_, batch.back().ticket);
    }
    done_.notify_all();
}

void Drainer::loop() {
    t_thread_role = ThreadRole::Drainer;
    auto sleep = kBusySleep;
    auto next_periodic = std::chrono::steady_clock::now() + std::chrono::milliseconds(periodic_ms_);
    for (;;) {
        const std::uint64_t events = pass();
        run_commands();
        if (periodic_ms_ != 0 && std::chrono::steady_clock::now() >= next_periodic) {
            drain_all();
            periodic_(*this);
            next_periodic = std::chrono::steady_clock::now() + std::chrono::milliseconds(periodic_ms_);
        }
        std::unique_lock<std::mutex> lock(mutex_);
        if (stopping_) {
            lock.unlock();
            drain_all();
            run_commands();
            return;
        }
        if (urgent_) continue;
        sleep = events != 0 ? kBusySleep
                            : std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(kMaxSleep));
        wake_.wait_for(lock, sleep, [&] { return stopping_ || !commands_.empty(); });
    }
}

}  // namespace ringprof::detail
