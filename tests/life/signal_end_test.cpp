// A run ended by SIGINT, SIGTERM or SIGHUP at their default action keeps every output whole and
// still dies of that signal; a program's own handlers stay its own; a program whose every thread
// has ended with pthread_exit ends, ringprof's threads notwithstanding. Each scenario runs in a
// child with a deadline.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <simdjson.h>

#include "bounded_process.hpp"
#include "env_session.hpp"
#include "gzip_text.hpp"
#include "held_ringprof_threads.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "session/signal_end.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

// Events named `name` in a trace.json.gz whose gzip stream ends properly and whose JSON parses
// whole; -1 if it does not.
long spans_in_trace(const std::string& path, std::string_view name) {
    const Inflated inflated = inflate_gzip(read_text(path));
    if (!inflated.ended) return -1;
    const std::string& json = inflated.text;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    simdjson::dom::array events;
    if (parser.parse(json).get(doc) != simdjson::SUCCESS || doc["traceEvents"].get(events) != simdjson::SUCCESS) {
        return -1;
    }
    long n = 0;
    for (simdjson::dom::element e : events) {
        std::string_view event_name;
        if (e["name"].get(event_name) == simdjson::SUCCESS && event_name == name) ++n;
    }
    return n;
}

void record_signalled_run_to(const TempDir& dir, const char* run_id) { record_to(dir, run_id, "timers,trace"); }

void record_work() {
    for (int i = 0; i < 500; ++i) {
        PROF_SCOPE("work");
    }
}

// A child that records (`record`, which may also set up handlers around the session's start),
// then sends itself `sig` and waits for the signal to end it.
Outcome signalled_after(const TempDir& dir, const char* run_id, int sig, const std::function<void()>& record) {
    return run_bounded(
        [&] {
            record_signalled_run_to(dir, run_id);
            record();
            ::kill(::getpid(), sig);
            for (;;) std::this_thread::sleep_for(10ms);  // until the signal ends the process
            return 0;
        },
        within(60s));
}

void expect_outputs_whole(const TempDir& dir, const char* run_id) {
    const TimerTree tree = load_timers_json(dir.str() + "/" + run_id + "_timers.json");
    const TimerNode* work = tree.root.find("work");
    ASSERT_NE(work, nullptr);
    EXPECT_EQ(work->count, 500u);
    EXPECT_EQ(spans_in_trace(dir.str() + "/" + run_id + "_trace.json.gz", "work"), 500);
}

class DefaultAction : public ::testing::TestWithParam<int> {};

TEST_P(DefaultAction, WritesEveryOutputWholeAndTheProcessStillDiesOfTheSignal) {
    const int sig = GetParam();
    TempDir dir;
    const Outcome o = signalled_after(dir, "signalled", sig, record_work);
    ASSERT_TRUE(o.finished) << "the signal did not end the process";
    EXPECT_EQ(o.signal, sig) << "exit code " << o.exit_code;
    expect_outputs_whole(dir, "signalled");
}

INSTANTIATE_TEST_SUITE_P(SigintSigtermSighup, DefaultAction, ::testing::Values(SIGINT, SIGTERM, SIGHUP));

void exits_seven(int) { ::_exit(7); }

TEST(SignalEnd, AHandlerInstalledBeforeTheSessionStaysTheProgramsOwn) {
    TempDir dir;
    const Outcome o = signalled_after(dir, "own_before", SIGTERM, [] {
        ::signal(SIGTERM, exits_seven);
        record_work();  // the session starts here
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 7) << "signal " << o.signal;
}

TEST(SignalEnd, AHandlerInstalledAfterTheSessionStartedWins) {
    TempDir dir;
    const Outcome o = signalled_after(dir, "own_after", SIGTERM, [] {
        record_work();
        ::signal(SIGTERM, exits_seven);
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 7) << "signal " << o.signal;
}

TEST(SignalEnd, AnIgnoredSignalStaysIgnored) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            record_signalled_run_to(dir, "ignored");
            ::signal(SIGHUP, SIG_IGN);
            record_work();
            ::kill(::getpid(), SIGHUP);
            std::this_thread::sleep_for(200ms);
            return 3;
        },
        within(60s));
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 3) << "signal " << o.signal;
    expect_outputs_whole(dir, "ignored");
}

// ringprof's signal thread is started by the drainer, so the thread starting the session (a
// marker's first call) does not wait for it. While every ringprof thread is held at its start,
// SIGTERM comes after the session took it, before that thread exists: the signal waits for the
// thread, which ends the run with its outputs whole, and the process still dies of it.
TEST(SignalEnd, ASignalBeforeRingprofsSignalThreadStartsWaitsForItAndEveryOutputIsWhole) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            record_signalled_run_to(dir, "early_signal");
            HeldRingprofThreads held;
            record_work();                // the first scope starts the session
            ::kill(::getpid(), SIGTERM);  // handled on this thread before kill returns
            held.release();
            for (;;) std::this_thread::sleep_for(10ms);  // until the signal ends the process
            return 0;
        },
        within(60s));
    ASSERT_TRUE(o.finished) << "the signal did not end the process";
    EXPECT_EQ(o.signal, SIGTERM) << "exit code " << o.exit_code;
    expect_outputs_whole(dir, "early_signal");
}

// A timeline backend whose final snapshot takes 300 ms, and says when it has begun.
std::atomic<bool> g_last_snapshot_began{false};
class SlowLastSnapshot : public Backend {
public:
    const char* name() const override { return "slow_last_snapshot"; }
    bool wants_spans() const override { return true; }
    void on_snapshot(const Snapshot& s) override {
        if (!s.final) return;
        g_last_snapshot_began = true;
        std::this_thread::sleep_for(300ms);
    }
};

// The signal's end of a session (here called directly, so the process is not killed after it) is
// under way when the program destroys that session itself: the destructor waits for that end, is
// not a second one, and frees the session only after it. (A pool worker's SIGTERM arriving while
// Python's exit handlers end the default session meets the same two ends.)
TEST(SignalEnd, ASessionDestroyedWhileASignalEndsItWaitsForThatEndAndEveryOutputIsWhole) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            Config c;
            c.output_dir = dir.str();
            c.run_id = "two_ends";
            c.backends = {"timers", "trace"};
            auto session = std::make_unique<Session>(c);
            session->add_backend(std::make_unique<SlowLastSnapshot>());
            record_work();
            std::thread signal_end([] { detail::end_sessions_for_signal(); });
            while (!g_last_snapshot_began) std::this_thread::sleep_for(1ms);
            session.reset();  // the program's own end, while the signal's waits for the writer
            signal_end.join();
            return 0;
        },
        within(60s));
    ASSERT_TRUE(o.finished) << "the session's two ends hung";
    EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal;
    expect_outputs_whole(dir, "two_ends");
}

// POSIX: a process whose last thread ends exits with status 0, its exit handlers run. ringprof's
// threads are not the program's and must not keep it alive.
class LastThread : public ::testing::Test {
protected:
    void SetUp() override {
        if (kThreadSanitizer) {
            // ThreadSanitizer's runtime keeps a thread of its own, which is not ringprof's: like any
            // other library's thread it keeps the process alive. The release and ASan builds run these.
            GTEST_SKIP() << "ThreadSanitizer's background thread keeps the process alive";
        }
    }
};

// In the child: the first thread ends alone, `last` runs on a thread that outlives it, and that
// thread, the program's last, ends with pthread_exit.
int end_every_thread_after(void (*last)()) {
    std::thread([last] {
        last();
        std::this_thread::sleep_for(100ms);  // the first thread has ended by now
        ::pthread_exit(nullptr);             // the program's last thread
    }).detach();
    // The first thread ends alone (pthread_exit here would unwind into run_bounded's catch-all,
    // which glibc forbids).
    ::syscall(SYS_exit, 0);
    return 1;
}

TEST_F(LastThread, AProgramWhoseEveryThreadEndedExitsWithItsOutputsWhole) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            record_signalled_run_to(dir, "last_thread");
            return end_every_thread_after(record_work);
        },
        within(60s));
    ASSERT_TRUE(o.finished) << "ringprof's threads kept the process alive";
    // Under ASan, LeakSanitizer's check at exit finds the objects of the first thread's stack,
    // which ended without unwinding, unreachable, and fails the exit status: what is checked there
    // is that the process ended with its outputs whole.
    if (!kAddressSanitizer) {
        EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal;
    }
    expect_outputs_whole(dir, "last_thread");
}

// After an explicit session has ended, no drainer looks any more; ringprof's thread that waits
// for signals outlives it and must not keep the process alive either.
TEST_F(LastThread, AfterTheSessionEndedRingprofsSignalThreadKeepsNoProcessAlive) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            Config c;
            c.output_dir = dir.str();
            c.run_id = "ended";
            c.backends = {"timers"};
            { Session session(c); }
            return end_every_thread_after([] {});
        },
        within(60s));
    ASSERT_TRUE(o.finished) << "ringprof's threads kept the process alive";
    if (!kAddressSanitizer) {
        EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal;  // see above
    }
}

}  // namespace
}  // namespace ringprof::testing
