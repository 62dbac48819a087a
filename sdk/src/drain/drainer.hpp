// The background thread that reads every ring. It polls: again at once while a ring is a quarter
// full, after ~100 us while a ring fills fast for its size, ~1 ms while every ring fills slowly,
// and a little longer each time it finds nothing; a producer whose ring fills past a quarter
// rings its doorbell, and so do commands (snapshots, grafts) other threads hand it to run
// between passes. It also grows the rings of hot threads (ring_room.hpp). A pass with more to
// read than one thread decodes quickly is cut into shares decoded at once (decode_pool.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "drain/aggregator.hpp"
#include "drain/clock_calibration.hpp"
#include "drain/decode_pool.hpp"
#include "drain/end_patience.hpp"
#include "drain/thread_track.hpp"
#include "process/fork_gate.hpp"

namespace ringprof::detail {

// A thread that produced spans in the last pass, named as it is now (the timeline needs names
// before the thread's spans, and a short-lived thread's track is gone by the end of the pass).
struct SpanThread {
    std::uint32_t tid;
    std::string name;
};

// From the first drainer's start, a module unloading during exit is not drained (module_unload.cpp).
void watch_for_exit() noexcept;

class Drainer {
public:
    using SpanSink = std::function<void(TimelineRecords&, const WithheldSpans*)>;
    // Asked before each range a pass decodes: how many more spans and gauge samples the sink
    // takes, with the filters set in `limits`; the part of the range that might not fit withholds
    // its spans (timeline_records.hpp, WithheldSpans).
    using SpanRoom = std::function<std::size_t(WithheldSpans& limits)>;
    using PeriodicTask = std::function<void(Drainer&)>;

    explicit Drainer(ClockCalibration& clock);
    ~Drainer();  // stop() if still running

    // `sink` receives the timeline's records after each pass when set (it may swap the vector out),
    // and, for a pass that withheld spans, what it counted instead of writing (else null).
    void set_span_sink(SpanSink sink, SpanRoom room) {
        span_sink_ = std::move(sink);
        span_room_ = std::move(room);
    }
    // For the span sink: the threads whose spans it is receiving.
    const std::vector<SpanThread>& span_threads() const { return span_threads_; }
    // Runs on the drainer thread every `interval_ms` (0: never).
    void set_periodic(std::uint32_t interval_ms, PeriodicTask task);
    // Runs once on the drainer thread before its first pass: a session's start hands it what the
    // thread that starts the session (often a marker's first call) should not wait for.
    void set_first_task(PeriodicTask task) { first_task_ = std::move(task); }
    // How many threads may decode one pass (Config::drainers): 0 chooses by the cores and by how
    // many threads are recording; n > 0 cuts every pass with two or more rings to read into up
    // to n shares. Before start().
    void set_drainers(std::uint32_t setting) { drainers_setting_ = setting; }

    // Starts the thread; false (nothing started, nothing to stop) if it cannot be created.
    bool start();
    // Reads every ring to its end, stops the thread and parks the rings for a later session.
    void stop();
    // The same, waiting for the thread while it makes progress: false if it stopped moving for the
    // patience's bound before finishing (blocked in a backend), in which case it still runs and
    // this Drainer must never be destroyed. Given up on, it never reads a ring again: when its
    // blocked call returns, it hands its rings back to the registry unread (a later session's
    // drainer adopts them, with whatever was recorded into them since) and ends.
    bool stop_until(const EndPatience& patience);

    // Runs `fn` on the drainer thread right after a full pass and waits for it to finish. From
    // the drainer thread itself (a periodic task), runs it at once. Once stop() has begun, or if
    // the thread never started, returns without running it.
    void run(const std::function<void(Drainer&)>& fn);
    // The same, waiting while the drainer makes progress: false if `fn` has not finished when it
    // stops moving (it may still run later; it is copied, so the caller's frame may go).
    bool run_until(const std::function<void(Drainer&)>& fn, const EndPatience& patience);
    // Moves when the drainer gets work done (a pass that read events, a command run); an idle
    // pass is no progress, so a wait on something else the drainer is not doing still ends.
    std::uint64_t progress() const { return progress_.load(std::memory_order_relaxed); }
    // The backend the drainer is calling now, if any (named when the end gives up on it).
    const char* calling() const { return calling_.load(std::memory_order_relaxed); }
    void set_calling(const char* backend) { calling_.store(backend, std::memory_order_relaxed); }

    // Has the running drainer, if any, read every ring up to now; false if it made no progress for
    // `still` first. For a module that unloads (module_unload.cpp).
    static bool drain_running(std::chrono::milliseconds still);

    // For commands (drainer thread only).
    Aggregator& aggregator() { return aggregator_; }
    void fill(Snapshot& snapshot) const;
    // The flat statistics of the running thread `tid` (its ring not yet given up); empty when it
    // has recorded nothing.
    std::vector<FunctionStats> live_thread_stats(std::uint32_t tid) const;
    // Forgets every total and gauge so far (open scopes stay open).
    void reset_aggregates();
    // Reads every ring until a pass finds nothing new.
    void drain_all();

private:
    // One share of a pass: whole tracks, in track order, decoded by one thread.
    struct PassShare {
        std::size_t first = 0, end = 0;    // tracks_[first, end)
        TimelineRecords* spans = nullptr;  // null: no timeline
        TimelineRecords own_spans;         // where a share other than the first writes
        WithheldSpans withheld;
        bool fixed_room = false;  // decoded at once with other shares: `room` is its part
        std::size_t room = 0;
        std::vector<SpanThread> span_threads;
        std::vector<std::pair<Ring*, std::uint64_t>> unread;  // each ring and what it had unread
        std::uint64_t events = 0;
        bool urgent = false, calm = true, any_withheld = false;
    };

    void loop();
    std::uint64_t pass();
    std::size_t shares_for_pass(std::vector<std::uint64_t>& unread) const;
    void cut_into_shares(std::size_t shares, const std::vector<std::uint64_t>& unread);
    void read_share(PassShare& share, std::size_t decoder, double since_ns);
    void adopt_new_rings();
    void run_commands();
    void grow_if_filling(Ring& ring, std::uint64_t was_unread);
    void keep_counts_of_exited(const ThreadTrack& track);
    void refill_hot_segments_for_session(bool faulted = true);
    void park_tracks();  // the rings back to the registry for a later session
    void size_decoders();  // from drainers_setting_, on the drainer thread

    ClockCalibration& clock_;
    Aggregator aggregator_;
    std::vector<ThreadTrack*> tracks_;
    std::vector<PassShare> shares_ = std::vector<PassShare>(1);
    std::uint32_t drainers_setting_ = 0;
    std::size_t max_decoders_ = 1;
    bool decoders_forced_ = false;
    DecodePool decode_pool_;  // stopped by the drainer thread as it ends
    std::vector<std::uint64_t> unread_scratch_;  // per track, at a pass's start
    TimelineRecords spans_;
    WithheldSpans withheld_;
    std::vector<SpanThread> span_threads_;
    SpanSink span_sink_;
    SpanRoom span_room_;
    PeriodicTask first_task_;
    RingCounts retired_counts_;  // of the threads that exited, in ticks
    std::vector<ThreadInfo> exited_with_counts_;
    std::uint64_t exited_folded_ = 0;  // exited threads summed into the last entry
    bool urgent_ = false;              // the last pass found a ring filling up
    // The last pass found every ring filling slowly enough (at its rate since the pass before)
    // to sleep kCalmSleep without reaching a quarter of its segment.
    bool calm_ = false;
    std::chrono::steady_clock::time_point last_pass_{};
    std::uint64_t growing_rings_ = 0;  // rings the last pass found about to leave their first segment
    int hot_wanted_ = 0;               // hot segments the pool keeps (refill_hot_segments_for_session)
    std::chrono::steady_clock::time_point hot_raised_at_{};

    std::uint32_t periodic_ms_ = 0;
    PeriodicTask periodic_;

    std::mutex mutex_;
    std::condition_variable done_;
    struct Command {
        // The caller's function (not owned) when the caller waits for it, a copy otherwise.
        std::shared_ptr<const std::function<void(Drainer&)>> fn;
        std::uint64_t ticket;
    };
    // Queues `fn` and waits for it; false if the drainer stopped moving before it ran.
    bool submit(std::shared_ptr<const std::function<void(Drainer&)>> fn, const EndPatience& patience);
    // The end gave up on this drainer: touch no ring again (see stop_until).
    std::atomic<bool> abandoned_{false};
    std::atomic<const char*> calling_{nullptr};
    std::atomic<std::uint64_t> progress_{0};
    std::vector<Command> commands_;
    std::uint64_t next_ticket_ = 1;
    std::uint64_t completed_ticket_ = 0;
    bool stopping_ = false;
    bool finished_ = false;  // the loop has returned: join() will not wait
    GatedThread thread_;
};

}  // namespace ringprof::detail
