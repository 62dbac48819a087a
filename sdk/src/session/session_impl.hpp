// What a Session owns, and the process-wide bookkeeping of which session is current.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "drain/clock_calibration.hpp"
#include "drain/drainer.hpp"
#include "process/output_problems.hpp"
#include "process/run_claim.hpp"
#include "record/default_session.hpp"
#include "record/slow_path_counts.hpp"
#include "ringprof/session.hpp"
#include "session/drop_report.hpp"
#include "system/system_sampler.hpp"
#include "timeline/timeline_writer.hpp"

namespace ringprof {

class SessionImpl {
public:
    explicit SessionImpl(Config config);
    ~SessionImpl();

    void start();
    // Final snapshot, backends closed, rings parked; waits for ringprof's threads while they make
    // progress (end_patience). False if one stopped moving first: it still runs, the caller must
    // never destroy this object. Runs once: a later call returns true at once, so a caller that
    // may meet another thread's end (the signal's) pins the session first and waits for the pins
    // to go before it frees anything (end_once_unpinned).
    bool stop();
    detail::EndPatience end_patience() const;
    // "the output of a, b" for the backends that take their snapshots on the writer (or not).
    std::string names_of_backends(bool on_writer) const;

    // Drainer thread only.
    Snapshot make_snapshot(bool final);
    // The aggregate backends get it now, the timeline backends on the writer (a periodic one only
    // if the writer has taken the last); returns the writer's ticket for it
    // (TimelineWriter::wait_for_snapshot).
    std::uint64_t write_snapshot(bool final, bool periodic = false);
    // Routes spans to `backend` if it wants them (drainer thread, or before the drainer starts;
    // null: only start the timeline writer if a backend wants spans).
    void attach_spans(Backend* backend);
    // The built-in backends and the timeline writer: on the drainer before its first pass, or on
    // the thread starting the session if no drainer runs.
    void start_backends();
    // The system sampler, started on the drainer after the outputs; stop_sampler() may come
    // first (a session ended at once), and then none starts.
    void start_sampler();
    void stop_sampler();

    Config config;
    detail::OutputProblems problems;  // every failure of an output, said once
    RunInfo run;
    detail::ClockCalibration clock;
    detail::Drainer drainer;
    std::vector<std::unique_ptr<Backend>> backends;  // touched on the drainer thread only
    // Spans to the backends that want them, on the writer thread; declared after `backends` so
    // it stops before they are destroyed.
    std::unique_ptr<detail::TimelineWriter> timeline;
    pid_t owner_pid;
    detail::RunClaim run_claim;  // keeps run.run_id this process's alone in the output folder
    std::uint64_t reset_ticks;             // the root's total counts from here (start, or the last take)
    std::uint64_t marker_cost_ticks = 0;  // one Begin+End pair, measured at start
    std::atomic<bool> stopped{false};
    bool drainer_running = false;    // false: the drainer could not start, nothing is recorded
    detail::DropReport drop_report;  // drainer thread only
    int pins = 0;                    // API calls using this session now (guarded by the session mutex)
    std::mutex sampler_mutex;   // orders the sampler's start (drainer) with stop_sampler()
    bool sampler_stopped = false;
    std::unique_ptr<detail::SystemSampler> system_sampler;  // null: off, or another process samples

    // The sampler's rows as counter tracks on every timeline (empty when no timeline runs).
    std::function<void(const detail::SystemSample&, const std::string&)> system_counters_to_timeline();

    // Every failure of a backend goes here, to `problems`.
    void report(const Backend& backend, const char* stage, const std::exception& e);
};

namespace detail {

// The global lock for session start/stop (never taken by markers).
std::mutex& session_mutex();
// Does now what the exit handler does: ends the default session (its final files written), and
// no default session starts again in this process. For processes that end without exit
// handlers (a Python multiprocessing worker leaves with os._exit).
void stop_default_session();

// How long the end of a session (the exit handler, most often) waits for the drainer or the
// timeline writer once it stops making progress (end_patience.hpp): while they move, it waits.
// Between two moves lies one backend call (one snapshot written, one batch of 8,192 spans
// compressed); a machine overloaded hundreds of times over stretched a small run's final
// snapshot past 10 s (ExactByDefault at a load average of 500 on two cores), so the bound is
// well above that. A backend that does not return from one call within it (blocked on a lock, a
// full pipe, a hung network mount) is not waited for: exit goes on, saying which backend and which
// outputs are left incomplete. The aggregates never wait for the timeline writer, so a blocked
// timeline costs only the timeline.
inline constexpr std::chrono::seconds kMaxExitStill{30};

// Tests: the bound used instead of kMaxExitStill (0: kMaxExitStill again).
void set_exit_wait_for_testing(std::chrono::milliseconds wait) noexcept;

// The current session, kept alive for the duration of one API call. A session being destroyed
// first stops being current, then waits until no call holds it: a call racing with shutdown
// either completes on a live session or finds none and does nothing.
class PinnedSession {
public:
    PinnedSession();
    ~PinnedSession();
    PinnedSession(const PinnedSession&) = delete;
    PinnedSession& operator=(const PinnedSession&) = delete;
    Session* get() const { return session_; }
    SessionImpl* impl() const { return impl_; }
    Session* operator->() const { return session_; }
    explicit operator bool() const { return session_ != nullptr; }

private:
    Session* session_ = nullptr;
    SessionImpl* impl_ = nullptr;
};

}  // namespace detail
}  // namespace ringprof
