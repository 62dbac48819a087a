#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <stdexcept>

#include "drain/internal_failures.hpp"
#include "drain/thread_role.hpp"
#include "json/json_text.hpp"
#include "process/abandoned.hpp"
#include "record/marker_cost.hpp"
#include "record/recording_settings.hpp"
#include "record/ring_registry.hpp"
#include "record/ring_room.hpp"
#include "ringprof/context.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/version.hpp"
#include "session/builtin_backends.hpp"
#include "session/drop_report.hpp"
#include "session/reserved_metadata.hpp"
#include "session/session_impl.hpp"
#include "session/signal_end.hpp"

namespace ringprof {

namespace {

// Both replaced in a forked child and never destroyed (threads may outlive static destruction).
std::mutex* g_mutex = new std::mutex();        // guards the pointers below
std::mutex* g_start_mutex = new std::mutex();  // serializes starting the default session
Session* g_current = nullptr;
SessionImpl* g_current_impl = nullptr;  // g_current's, for PinnedSession
Session* g_default = nullptr;
// Signalled when a session's last pin goes; replaced in a forked child, like the mutexes.
std::condition_variable* g_unpinned = new std::condition_variable();
// The exit handler has run: no default session starts again in this process.
bool g_exiting = false;                // guarded by g_start_mutex
std::optional<Config> g_child_config;  // set in a forked child: the parent's settings
bool g_handlers_installed = false;
std::atomic<std::int64_t> g_exit_wait_ms_for_testing{0};

std::chrono::milliseconds exit_still() {
    const std::int64_t ms = g_exit_wait_ms_for_testing.load(std::memory_order_relaxed);
    return ms != 0 ? std::chrono::milliseconds(ms) : std::chrono::milliseconds(detail::kMaxExitStill);
}

// The end gave up on one of ringprof's threads: what it was doing, and what is left incomplete.
void say_exit_did_not_wait(const char* thread, const char* backend, const std::string& incomplete) {
    std::fprintf(stderr,
                 "ringprof: the session's end gave up on the %s after %.1f s without progress (blocked in %s); "
                 "it goes on without it, and %s may be incomplete\n",
                 thread, static_cast<double>(exit_still().count()) / 1000.0,
                 backend != nullptr ? (std::string("backend '") + backend + "'").c_str() : "a backend",
                 incomplete.c_str());
}

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

std::string seconds_string(std::uint64_t epoch_ns) { return std::to_string(epoch_ns / 1000000000ull); }

// A snapshot waits for the timeline writer, so a call that needs the drainer cannot be made
// from the writer (a backend's on_spans): such calls do nothing there.
bool on_timeline_writer() { return detail::t_thread_role == detail::ThreadRole::TimelineWriter; }

std::uint8_t recording_state(const Config& c) {
    if (!c.start_enabled) return detail::kOff;
    return c.custom_clock != nullptr ? detail::kSlow : detail::kOn;
}

// The first part of every session's end, the default one's at exit as an explicit one's in
// ~Session: the markers stop, no new API call finds the session, and the ones under way finish
// first (they only wait for the drainer, which is still running). A call that does not return
// while ringprof's threads make progress is itself waiting for a blocked one: the session is
// stopped here all the same (its end says what it could not finish), and false says that the
// caller must free nothing that call may still use. True: nothing is pinned; the caller stops it.
bool end_once_unpinned(const Session* s, SessionImpl* impl) {
    detail::g_state.store(detail::kOff, std::memory_order_release);
    std::unique_lock<std::mutex> lock(*g_mutex);
    if (g_current == s) {
        g_current = nullptr;
        g_current_impl = nullptr;
    }
    if (impl->end_patience().wait(lock, *g_unpinned, [&] { return impl->pins == 0; })) return true;
    lock.unlock();
    impl->stop();
    return false;
}

// The exit handler's work, also what ends a process that will not run it (see
// detail::stop_default_session).
void stop_default_session_at_exit() {
    // Taken first: a thread starting the default session right now finishes before we look.
    std::lock_guard<std::mutex> starting(*g_start_mutex);
    g_exiting = true;
    Session* s = nullptr;
    SessionImpl* impl = nullptr;
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        s = g_default;
        g_default = nullptr;
        if (s != nullptr && g_current == s) impl = g_current_impl;
    }
    if (impl != nullptr && impl->owner_pid == ::getpid() && !end_once_unpinned(s, impl)) {
        // A call still pinned reads the Session object too, not only its impl: nothing is freed.
        detail::keep_abandoned(s);
        return;
    }
    delete s;  // the destructor does nothing in a process that did not start it
}

void after_fork_in_child() {
    // Only this thread exists now; locks other threads held are abandoned with their owners.
    detail::keep_abandoned(g_mutex);
    detail::keep_abandoned(g_start_mutex);
    detail::keep_abandoned(g_unpinned);
    g_mutex = new std::mutex();
    g_start_mutex = new std::mutex();
    g_unpinned = new std::condition_variable();
    const std::uint8_t state = detail::g_state.load(std::memory_order_relaxed);
    if (g_current != nullptr) {
        Config c = g_current->config();
        if (!c.run_id.empty()) c.run_id += "_" + std::to_string(::getpid());
        g_child_config = std::move(c);
        // The parent's session (and its drainer, which did not survive fork) is left alone:
        // its destructor, if it ever runs here, sees another pid and does nothing.
        detail::keep_abandoned(g_default);
        g_current = nullptr;
        g_current_impl = nullptr;
        g_default = nullptr;
    }
    detail::RingRegistry::reset_after_fork();
    detail::forget_signal_end_thread_in_child();
    detail::g_state.store(state == detail::kOff ? detail::kOff : detail::kNotStarted, std::memory_order_relaxed);
}

void install_process_handlers() {
    if (g_handlers_installed) return;
    g_handlers_installed = true;
    std::atexit(stop_default_session_at_exit);
    ::pthread_atfork(nullptr, nullptr, after_fork_in_child);
}

}  // namespace

namespace detail {

std::mutex& session_mutex() { return *g_mutex; }

void stop_default_session() { stop_default_session_at_exit(); }

void end_sessions_for_signal() {
    {
        // The current session, the program's own or the default: its destructor will not run now
        // (the process dies next), or it is running on another thread right now (the program's
        // end, or the exit handler). Pinned, so that such an end waits for this one and frees the
        // session after it; the markers stop first, as in the destructor.
        PinnedSession current;
        if (current) {
            g_state.store(kOff, std::memory_order_release);
            current.impl()->stop();
        }
    }
    stop_default_session_at_exit();
}

void set_exit_wait_for_testing(std::chrono::milliseconds wait) noexcept {
    g_exit_wait_ms_for_testing.store(wait.count(), std::memory_order_relaxed);
}

void ensure_default_session() {
    std::lock_guard<std::mutex> starting(*g_start_mutex);
    if (g_exiting) {
        // After the exit handler: markers and API calls are no-ops from now on.
        std::uint8_t expected = kNotStarted;
        g_state.compare_exchange_strong(expected, kOff);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        if (g_current != nullptr || g_state.load(std::memory_order_relaxed) != kNotStarted) return;
    }
    Config c = g_child_config ? *g_child_config : Config::from_environment();
    try {
        auto* s = new Session(std::move(c));
        std::lock_guard<std::mutex> lock(*g_mutex);
        g_default = s;
    } catch (const std::exception& e) {
        // An explicit session started in between: markers record into that one instead.
        static_cast<void>(e);
    }
}

PinnedSession::PinnedSession() {
    std::lock_guard<std::mutex> lock(*g_mutex);
    if (g_current == nullptr || g_current_impl == nullptr) return;  // none, or not started yet
    session_ = g_current;
    impl_ = g_current_impl;
    ++impl_->pins;
}

PinnedSession::~PinnedSession() {
    if (impl_ == nullptr) return;
    std::lock_guard<std::mutex> lock(*g_mutex);
    if (--impl_->pins == 0) g_unpinned->notify_all();
}

}  // namespace detail

// ---------------------------------------------------------------- SessionImpl

SessionImpl::SessionImpl(Config c)
    : config(std::move(c)),
      problems(config.output_dir),
      clock(config.custom_clock != nullptr
                ? detail::ClockCalibration(config.custom_clock, config.custom_clock_seconds_per_tick)
                : detail::ClockCalibration()),
      drainer(clock),
      owner_pid(::getpid()),
      reset_ticks(clock.start_ticks()) {
    run.output_dir = config.output_dir;
    run.run_id = config.effective_run_id();
    run.pid = owner_pid;
    run.host = host_name();
    run.start_epoch_ns = clock.start_epoch_ns();
    backends = backends::make_builtin_backends(config);
    timeline = std::make_unique<detail::TimelineWriter>(
        clock, detail::TimelineOptions{config.timeline_min_ns, config.timeline_max_depth, config.timeline_queue_spans});
    timeline->set_problem_reporter(
        [this](const Backend& b, const char* stage, const std::exception& e) { report(b, stage, e); });
}

SessionImpl::~SessionImpl() {
    if (owner_pid == ::getpid()) stop();
}

detail::EndPatience SessionImpl::end_patience() const {
    // Either thread getting work done counts: the drainer's final snapshot waits on nothing of the
    // writer's, but a pin may be waiting on a flush that waits on the writer.
    const detail::Drainer* d = &drainer;
    const detail::TimelineWriter* writer = timeline.get();
    return detail::EndPatience{exit_still(), [d, writer] { return d->progress() + writer->progress(); }};
}

std::string SessionImpl::names_of_backends(bool on_writer) const {
    std::string names;
    for (const auto& b : backends) {
        if (timeline->takes_snapshots_of(*b) != on_writer) continue;
        names += (names.empty() ? "" : ", ") + std::string(b->name());
    }
    return names.empty() ? "nothing" : "the output of " + names;
}

void SessionImpl::start() {
    // Here: the run id is this process's from the session's first moment (run_info(), a child
    // forked now, a process with the same run id that this one starts or tells to start).
    try {
        ensure_output_dir(run.output_dir);
    } catch (const std::exception& e) {
        problems.report("", "start", e);
    }
    run.run_id = run_claim.claim(run.output_dir, run.run_id);
    // On the drainer before its first pass, while markers already record into the rings: the
    // thread that starts the session (often a marker's first call) would otherwise wait for the
    // signal thread, the backends' files, the writer's and the sampler's threads and the
    // marker-cost measurement (about a millisecond).
    drainer.set_first_task([this](detail::Drainer& d) {
        detail::start_signal_end_thread();  // a signal taken meanwhile waits in its pipe for it
        start_backends();                   // before the rest, so a flush right after waits least
        start_sampler();
        marker_cost_ticks = config.custom_clock != nullptr ? 0 : detail::measure_marker_cost_ticks();
        d.aggregator().set_marker_cost(marker_cost_ticks, config.subtract_overhead);
    });
    if (config.flush_interval_ms != 0) {
        // Not waited for: the timeline backends take theirs when the writer reaches it.
        drainer.set_periodic(config.flush_interval_ms,
                            [this](detail::Drainer&) { write_snapshot(false, /*periodic=*/true); });
    }
    drainer.set_drainers(config.drainers);
    drainer_running = drainer.start();
    if (drainer_running) return;
    // Nothing is recorded, but the outputs are written at the end.
    detail::start_signal_end_thread();
    start_backends();
}

void SessionImpl::start_backends() {
    for (auto& b : backends) {
        try {
            b->on_start(run);
        } catch (const std::exception& e) {
            report(*b, "start", e);
        }
    }
    for (auto& b : backends) timeline->add_backend(b.get());
    if (timeline->has_backends()) attach_spans(nullptr);
}

void SessionImpl::start_sampler() {
    std::lock_guard<std::mutex> lock(sampler_mutex);
    if (sampler_stopped) return;
    system_sampler = detail::start_session_sampler(config, problems, system_counters_to_timeline());
}

void SessionImpl::stop_sampler() {
    std::lock_guard<std::mutex> lock(sampler_mutex);
    sampler_stopped = true;
    if (system_sampler) system_sampler->stop();
}

std::function<void(const detail::SystemSample&, const std::string&)> SessionImpl::system_counters_to_timeline() {
    if (!timeline->running()) return {};
    return [writer = timeline.get()](const detail::SystemSample& sample, const std::string& node) {
        const auto epoch_ns = static_cast<std::uint64_t>(std::llround(sample.timestamp * 1e9));
        std::vector<detail::CounterSample> counters;
        counters.reserve(sample.metrics.size());
        for (const detail::SystemMetric& m : sample.metrics)
            counters.push_back({detail::counter_name(m, node), epoch_ns, m.value});
        writer->post_counters(std::move(counters));
    };
}

bool SessionImpl::stop() {
    if (stopped.exchange(true)) return true;
    stop_sampler();
    const detail::EndPatience patience = end_patience();
    // The final snapshot writes the aggregates (timers, statistics) on the drainer and hands the
    // timeline backends theirs through the writer's queue, so the aggregates never wait for a
    // timeline. Past the bound, a thread is left running in whatever blocks it and nothing it
    // uses is touched again.
    if (!drainer.run_until([this](detail::Drainer&) { write_snapshot(true); }, patience) ||
        !drainer.stop_until(patience)) {
        say_exit_did_not_wait("drainer", drainer.calling(), "every output");
        return false;
    }
    const bool timeline_done = timeline->stop_until(patience);  // the last spans reach the backends first
    for (auto& b : backends) {
        if (!timeline_done && timeline->takes_snapshots_of(*b)) continue;  // the writer still uses it
        try {
            b->on_close();
        } catch (const std::exception& e) {
            report(*b, "close", e);
        }
    }
    if (!timeline_done) {
        say_exit_did_not_wait("timeline writer", timeline->calling(), names_of_backends(/*on_writer=*/true));
        return false;
    }
    run_claim.release();
    return true;
}

Snapshot SessionImpl::make_snapshot(bool final) {
    Snapshot s;
    drainer.fill(s);
    const std::uint64_t now_ticks = detail::slow_ticks();
    s.end_epoch_ns = clock.to_epoch_ns(now_ticks);
    s.final = final;
    s.tree.root.name = "root";
    s.tree.root.total = clock.to_ns(now_ticks - reset_ticks) * 1e-9;
    // Metadata: what ML-Agents records, minus the command line (real files have leaked tokens
    // that way), plus what a reader needs to trust the numbers.
    TimerTree& t = s.tree;
    std::vector<std::pair<std::string, std::string>> user = std::move(t.metadata);
    t.metadata.clear();
    t.set_metadata("timer_format_version", "0.1.0");
    t.set_metadata("start_time_seconds", seconds_string(run.start_epoch_ns));
    t.set_metadata("ringprof_version", RINGPROF_VERSION_STRING);
    t.set_metadata("run_id", run.run_id);
    t.set_metadata("dropped_scopes", std::to_string(s.dropped));
    detail::add_ring_metadata(s, t);
    char cost[32];
    std::snprintf(cost, sizeof cost, "%.2f", clock.to_ns(marker_cost_ticks));
    t.set_metadata("marker_cost_ns", cost);
    t.set_metadata("marker_cost_subtracted", config.subtract_overhead ? "true" : "false");
    if (const std::uint64_t in_handlers = detail::signal_handler_drops()) {
        t.set_metadata("dropped_scopes_in_signal_handlers", std::to_string(in_handlers));
    }
    if (const std::uint64_t misnested = drainer.aggregator().misnested()) {
        t.set_metadata("misnested_scopes", std::to_string(misnested));
    }
    if (const std::uint64_t foreign = detail::foreign_closes()) {
        t.set_metadata("scopes_ended_on_another_thread", std::to_string(foreign));
        static std::atomic<bool> said{false};
        if (!said.exchange(true)) {
            std::fprintf(stderr,
                         "ringprof: a scope was ended on another thread than the one that opened it; its end is not "
                         "recorded (counted in the metadata as scopes_ended_on_another_thread)\n");
        }
    }
    if (const std::uint64_t failures = detail::internal_failures()) {
        t.set_metadata("profiler_failures", std::to_string(failures));
    }
    // The user's keys were renamed by add_metadata where they clash with ringprof's; the rest of
    // the tree's metadata is the aggregator's own (folded_deep_nodes).
    for (auto& [k, v] : user) t.set_metadata(k, v);
    t.set_metadata("end_time_seconds", seconds_string(s.end_epoch_ns));
    return s;
}

std::uint64_t SessionImpl::write_snapshot(bool final, bool periodic) {
    auto s = std::make_shared<Snapshot>(make_snapshot(final));
    if (timeline->has_backends()) {
        s->tree.set_metadata("timeline_dropped_spans", std::to_string(timeline->dropped_spans()));
    }
    drop_report.on_snapshot(*s, timeline->dropped_spans(), config.on_full, final);
    for (auto& b : backends) {
        if (timeline->takes_snapshots_of(*b)) continue;  // on the writer, below
        drainer.set_calling(b->name());
        try {
            b->on_snapshot(*s);
        } catch (const std::exception& e) {
            report(*b, "write", e);
        }
        drainer.set_calling(nullptr);
    }
    return timeline->send_snapshot(std::move(s), /*skippable=*/periodic);
}

void SessionImpl::attach_spans(Backend* backend) {
    if (backend != nullptr) timeline->add_backend(backend);
    if (!timeline->has_backends() || timeline->running()) return;
    if (!timeline->start()) return;
    drainer.set_span_sink(
        [this](detail::TimelineRecords& spans, const detail::WithheldSpans* withheld) {
            timeline->on_pass(spans, drainer.span_threads(), withheld);
        },
        [this](detail::WithheldSpans& limits) { return timeline->span_room(limits); });
}

void SessionImpl::report(const Backend& backend, const char* stage, const std::exception& e) {
    problems.report(backend.name(), stage, e);
}

// ---------------------------------------------------------------- Session

Session::Session(Config config) {
    {
        std::lock_guard<std::mutex> lock(*g_mutex);
        if (g_current != nullptr) {
            throw std::logic_error("ringprof: a session is already running in this process");
        }
        install_process_handlers();
        g_current = this;
    }
    try {
        impl_ = std::make_unique<SessionImpl>(std::move(config));
    } catch (...) {
        std::lock_guard<std::mutex> lock(*g_mutex);
        g_current = nullptr;
        throw;
    }
    detail::set_ring_capacity_for_new_threads(detail::ring_events_for_config(impl_->config));
    detail::set_full_ring_policy(impl_->config.on_full);
    detail::set_recording_clock(impl_->config.custom_clock);
    detail::take_default_signals();  // before the drainer, which starts the thread that ends the session
    impl_->start();
    {
        // From here API calls reach the session (its drainer runs).
        std::lock_guard<std::mutex> lock(*g_mutex);
        g_current_impl = impl_.get();
    }
    detail::g_state.store(impl_->drainer_running ? recording_state(impl_->config) : std::uint8_t{detail::kOff},
                          std::memory_order_release);
}

Session::~Session() {
    if (impl_->owner_pid != ::getpid()) {
        detail::keep_abandoned(impl_.release());  // a forked child's copy: its drainer never existed here
        return;
    }
    if (!end_once_unpinned(this, impl_.get())) {
        detail::keep_abandoned(impl_.release());  // the call still pinned may use it
        return;
    }
    if (!impl_->stop()) detail::keep_abandoned(impl_.release());  // its threads still use it
}

void Session::flush() {
    // From a backend callback: the snapshot being written (drainer) or the spans being
    // delivered (writer, which a snapshot waits for) already are the flush; waiting would
    // recurse or deadlock.
    if (detail::t_thread_role != detail::ThreadRole::User) return;
    std::uint64_t timeline_ticket = 0;
    impl_->drainer.run([&](detail::Drainer&) { timeline_ticket = impl_->write_snapshot(false); });
    impl_->timeline->wait_for_snapshot(timeline_ticket);  // here, not on the drainer
}

Snapshot Session::snapshot() {
    Snapshot s;
    if (on_timeline_writer()) return s;
    impl_->drainer.run([&](detail::Drainer&) { s = impl_->make_snapshot(false); });
    return s;
}

std::vector<FunctionStats> Session::thread_stats(std::uint32_t tid) {
    std::vector<FunctionStats> stats;
    if (on_timeline_writer()) return stats;
    impl_->drainer.run([&](detail::Drainer& d) { stats = d.live_thread_stats(tid); });
    return stats;
}

void Session::add_backend(std::unique_ptr<Backend> backend) {
    Backend* b = backend.get();
    if (on_timeline_writer()) return;
    impl_->drainer.run([&](detail::Drainer&) {
        try {
            b->on_start(impl_->run);
        } catch (const std::exception& e) {
            impl_->report(*b, "start", e);
        }
        impl_->backends.push_back(std::move(backend));
        impl_->attach_spans(b);
    });
}

void Session::add_metadata(std::string_view key, std::string_view value) {
    if (on_timeline_writer()) return;
    std::string k(key);
    const std::string v(value);
    if (detail::is_reserved_metadata_key(k)) {
        std::string kept = detail::kUserMetadataPrefix + k;
        std::fprintf(stderr,
                     "ringprof: add_metadata: '%s' is written by ringprof itself and cannot be replaced; "
                     "your value is kept as '%s'\n",
                     detail::valid_utf8(k).c_str(), detail::valid_utf8(kept).c_str());
        k = std::move(kept);
    }
    impl_->drainer.run([&](detail::Drainer& d) { d.aggregator().add_metadata(k, v); });
}

TimerTree Session::take_tree() {
    TimerTree tree;
    if (on_timeline_writer()) return tree;
    impl_->drainer.run([&](detail::Drainer& d) {
        tree = impl_->make_snapshot(false).tree;
        d.reset_aggregates();
        impl_->reset_ticks = detail::slow_ticks();
    });
    return tree;
}

void Session::graft(const Context& context, std::string_view graft_path, const TimerTree& tree) {
    if (on_timeline_writer()) return;
    const std::string path(graft_path);
    impl_->drainer.run([&](detail::Drainer& d) { d.aggregator().add_graft(context.id, path, tree); });
}

const Config& Session::config() const { return impl_->config; }
const RunInfo& Session::run_info() const { return impl_->run; }

Session* Session::current() {
    std::lock_guard<std::mutex> lock(*g_mutex);
    return g_current;
}

}  // namespace ringprof
