// ringprof's own threads stay out of the program's way: they never take its signals, a session
// whose drainer cannot start turns recording off instead of waiting for it, the end of a session
// waits a bounded time for a blocked backend, and a failure inside those threads (memory) costs
// part of the profile, never the program.
#include <gtest/gtest.h>

#include <poll.h>

#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <thread>

#include <simdjson.h>

#include "blocking_backend.hpp"
#include "bounded_process.hpp"
#include "session/session_impl.hpp"
#include "drain/thread_role.hpp"
#include "env_session.hpp"
#include "gzip_text.hpp"
#include "process/quiet_thread.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

// ---- allocation failures, injected on ringprof's threads only ----------------------------------
// While set, every allocation made on the drainer or the timeline writer fails as it does under a
// memory limit. The program's own threads are untouched, so what is tested is what the profiler
// does with the failure, not whether the program survives one of its own.
namespace {
std::atomic<bool> g_fail_ringprof_allocations{false};

bool failing_here() {
    return g_fail_ringprof_allocations.load(std::memory_order_relaxed) &&
           ringprof::detail::t_thread_role != ringprof::detail::ThreadRole::User;
}
}  // namespace

// GCC pairs the inlined new of other code with these deletes and warns, though both are ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
    if (failing_here()) throw std::bad_alloc();
    if (void* p = std::malloc(n != 0 ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's buffer): left to the sanitizer's allocator, their
// blocks would come back through the deletes above, a mismatch AddressSanitizer reports.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (failing_here()) return nullptr;
    return std::malloc(n != 0 ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

// Events named `name` in a trace.json.gz that parses whole; -1 if it does not.
long spans_named_in_trace(const std::filesystem::path& path, std::string_view name) {
    const Inflated inflated = inflate_gzip(read_text(path));
    if (!inflated.ended) return -1;
    const std::string& json = inflated.text;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(json).get(doc) != simdjson::SUCCESS) return -1;
    simdjson::dom::array events;
    if (doc["traceEvents"].get(events) != simdjson::SUCCESS) return -1;
    long n = 0;
    for (simdjson::dom::element e : events) {
        std::string_view event_name;
        if (e["name"].get(event_name) == simdjson::SUCCESS && event_name == name) ++n;
    }
    return n;
}

// ---- signals ------------------------------------------------------------------------------------

// The handler of the program: it says (exit code 3) when the kernel picked one of ringprof's
// threads to run it; on a thread of the program it lets that thread exit() (from the thread
// rather than the handler, so a sanitizer sees no unsafe call in a handler).
volatile sig_atomic_t g_sigterm_taken = 0;
void on_sigterm(int) {
    char name[16] = {};
    ::prctl(PR_GET_NAME, name);
    if (std::strncmp(name, "ringprof-", 9) == 0) ::_exit(3);  // ringprof-drain, ringprof-write
    g_sigterm_taken = 1;
}

void set_sigterm_blocked(bool blocked) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    ::pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

// The program's threads block SIGTERM while one is sent to the process: only ringprof's threads
// could take it. It must wait instead for the program's thread that unblocks it, which then
// exits, and every output is written whole.
TEST(OwnThreads, AProcessSignalIsHandledOnAThreadOfTheProgramNeverOnRingprofs) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "sig", "timers,trace");
            struct sigaction act {};
            act.sa_handler = on_sigterm;
            ::sigaction(SIGTERM, &act, nullptr);
            for (int i = 0; i < 1000; ++i) {
                PROF_SCOPE("work");
            }  // the drainer and the writer run
            flush();
            set_sigterm_blocked(true);
            ::kill(::getpid(), SIGTERM);
            for (int i = 0; i < 1000; ++i) {
                PROF_SCOPE("work");
                std::this_thread::sleep_for(100us);
            }
            std::thread taker([] {
                set_sigterm_blocked(false);  // the pending SIGTERM is delivered here
                while (g_sigterm_taken == 0) ::pause();
                std::exit(0);
            });
            taker.join();
            return 1;  // not reached
        },
        within(30s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "3: the handler ran on one of ringprof's threads";
    EXPECT_EQ(spans_named_in_trace(dir.path() / "sig_trace.json.gz", "work"), 2000);
    EXPECT_EQ(load_timers_json(dir.str() + "/sig_timers.json").root.find("work")->count, 2000u);
}

// The new thread starts with the mask, and the creating thread gets its own back.
TEST(OwnThreads, AQuietThreadBlocksAsynchronousSignalsAndTheCreatorKeepsItsMask) {
    sigset_t before;
    ::pthread_sigmask(SIG_SETMASK, nullptr, &before);
    sigset_t seen;
    sigemptyset(&seen);
    std::thread t = detail::start_quiet_thread([&] { ::pthread_sigmask(SIG_SETMASK, nullptr, &seen); });
    t.join();
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGALRM, SIGCHLD, SIGPIPE, SIGPROF}) {
        EXPECT_EQ(sigismember(&seen, sig), 1) << strsignal(sig);
    }
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) EXPECT_EQ(sigismember(&seen, sig), 0) << strsignal(sig);
    sigset_t after;
    ::pthread_sigmask(SIG_SETMASK, nullptr, &after);
    for (int sig = 1; sig < SIGRTMIN; ++sig) EXPECT_EQ(sigismember(&after, sig), sigismember(&before, sig)) << sig;
}

// Linux may start a new thread on its creator's CPU and run it there first: a program's thread
// whose first marker starts the session then waited milliseconds for the drainer's first work. A
// quiet thread a program's thread starts begins on another CPU, where the process may use one.
TEST(OwnThreads, AQuietThreadStartedByAProgramsThreadBeginsOnAnotherCpuThanItsCreator) {
    cpu_set_t allowed;
    ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
    if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "this process may run on one CPU only";
    int on_the_creators_cpu = 0;
    for (int i = 0; i < 20; ++i) {
        const int creator = ::sched_getcpu();
        int began = -1;
        std::thread t = detail::start_quiet_thread([&] { began = ::sched_getcpu(); });
        t.join();
        on_the_creators_cpu += began == creator ? 1 : 0;
    }
    EXPECT_EQ(on_the_creators_cpu, 0) << "of 20 threads";
}

// ---- a drainer that cannot start ----------------------------------------------------------------

void expect_recording_off_with_one_line(const Outcome& o, const std::string& err_path) {
    ASSERT_TRUE(o.finished) << "the first PROF_SCOPE waited for a drainer that never started";
    EXPECT_EQ(o.exit_code, 0);
    const std::string err = read_text(err_path);
    EXPECT_EQ(occurrences(err, "cannot start the drainer thread"), 1) << err;
    EXPECT_EQ(occurrences(err, "\n"), 1) << err;
}

TEST(OwnThreads, WhenTheDrainerThreadCannotBeCreatedRecordingIsOffAndTheFirstScopeReturns) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "nothread", "timers");
            detail::fail_thread_starts_for_testing(1);
            for (int i = 0; i < 1000; ++i) {
                PROF_SCOPE("first");
            }
            flush();
            return is_enabled() ? 2 : 0;
        },
        stderr_to(err, 20s));
    expect_recording_off_with_one_line(o, err);
}

// The same at the process limit itself: `ulimit -u` reached, as a user the limit applies to
// (root is exempt from it).
TEST(OwnThreads, AtTheProcessLimitRecordingIsOffAndTheFirstScopeReturns) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to become the user `nobody`";
    TempDir dir;
    std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "nproc", "timers");
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) return 4;
            rlimit before{};
            ::getrlimit(RLIMIT_NPROC, &before);
            const rlimit none{0, before.rlim_max};  // the soft limit: it can be given back below
            if (::setrlimit(RLIMIT_NPROC, &none) != 0) return 5;
            for (int i = 0; i < 1000; ++i) {
                PROF_SCOPE("first");
            }
            flush();
            const int code = is_enabled() ? 2 : 0;
            // LeakSanitizer's check at exit starts a thread of its own.
            ::setrlimit(RLIMIT_NPROC, &before);
            return code;
        },
        stderr_to(err, 20s));
    expect_recording_off_with_one_line(o, err);
}

// ---- the end of a session waits a bounded time ---------------------------------------------------

std::atomic<bool> g_block_final_snapshot{false};

TEST(OwnThreads, ABackendBlockedInTheFinalSnapshotHoldsExitForABoundedTime) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "blocked", "timers");
            detail::set_exit_wait_for_testing(300ms);
            { PROF_SCOPE("first"); }
            g_block_final_snapshot = true;
            Session::current()->add_backend(std::make_unique<HoldsTheFinalSnapshot>(g_block_final_snapshot));
            for (int i = 0; i < 1000; ++i) {
                PROF_SCOPE("work");
            }
            return 0;  // exit: the final snapshot blocks
        },
        stderr_to(err, 20s));
    ASSERT_TRUE(o.finished) << "exit waited for a backend that never returns";
    EXPECT_EQ(o.exit_code, 0);
    const std::string text = read_text(err);
    EXPECT_EQ(occurrences(text, "gave up on the drainer after 0.3 s without progress"), 1) << text;
    EXPECT_EQ(occurrences(text, "backend 'blocks_in_the_final_snapshot'"), 1) << "names the backend: " << text;
    EXPECT_EQ(occurrences(text, "\n"), 1) << text;
}

// ---- signal handlers during the session's start ------------------------------------------------

volatile sig_atomic_t g_main_starting = 0;
volatile sig_atomic_t g_signals_seen = 0;
void scope_in_handler(int) {
    g_signals_seen = g_signals_seen + 1;
    if (g_main_starting != 0) {
        PROF_SCOPE("in_handler");
    }
}

// Another thread signals the main thread as fast as it can while the main thread's first marker
// starts the default session (and registers the thread): the handler's marker lands inside that
// start, and must not wait for the locks its own thread holds there.
TEST(OwnThreads, AHandlerRunningAMarkerWhileTheSessionStartsNeverHangs) {
    if (kThreadSanitizer) {
        // TSan runs a handler only at a call it intercepts, so the handler's marker may come first
        // and start the session itself, in the handler: the unsafe call this test provokes on
        // purpose, which TSan reports. The release and ASan builds run it.
        GTEST_SKIP() << "ThreadSanitizer defers signal handlers to intercepted calls";
    }
    TempDir dir;
    for (int round = 0; round < 3; ++round) {  // the signal lands inside the start in most rounds
        const Outcome o = run_bounded(
            [&] {
                record_to(dir, "starting", "timers");
                struct sigaction act {};
                act.sa_handler = scope_in_handler;
                act.sa_flags = SA_RESTART;
                ::sigaction(SIGUSR1, &act, nullptr);
                std::atomic<bool> started{false};
                const pthread_t main_thread = ::pthread_self();
                std::thread signaller([&] {
                    while (!started) ::pthread_kill(main_thread, SIGUSR1);
                });
                // The signals come fast now. poll, not a yield or a sleep: ThreadSanitizer runs a
                // handler only when its thread enters a call it intercepts (sched_yield is not one),
                // and a relative sleep restarted after every signal never ends under this flood.
                while (g_signals_seen < 10) ::poll(nullptr, 0, 1);
                g_main_starting = 1;
                { PROF_SCOPE("first"); }
                started = true;
                signaller.join();
                return 0;
            },
            within(20s));
        ASSERT_TRUE(o.finished) << "round " << round << ": the handler's marker waited for the start it interrupted";
        EXPECT_EQ(o.exit_code, 0);
    }
}

// ---- failures inside ringprof's threads ---------------------------------------------------------

// Every allocation of the drainer and the writer fails for a while, timelines on (a trace and a
// timers file): what they were doing then is lost and counted, the program goes on and exits 0,
// and what is recorded afterwards is written whole.
TEST(OwnThreads, AllocationFailuresOnRingprofsThreadsCostPartOfTheProfileNotTheProgram) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "nomem", "timers,trace");
            for (int i = 0; i < 100; ++i) {
                PROF_SCOPE("before");
            }
            flush();
            g_fail_ringprof_allocations = true;
            const auto until = std::chrono::steady_clock::now() + 300ms;
            while (std::chrono::steady_clock::now() < until) {
                for (int i = 0; i < 1000; ++i) {
                    PROF_SCOPE("during");
                }
                std::this_thread::sleep_for(1ms);
            }
            g_fail_ringprof_allocations = false;
            for (int i = 0; i < 100; ++i) {
                PROF_SCOPE("after");
            }
            return 0;
        },
        stderr_to(err, 30s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << ": " << read_text(err);
    const std::string text = read_text(err);
    EXPECT_GE(occurrences(text, "profiler_failures"), 1) << text;
    const TimerTree tree = load_timers_json(dir.str() + "/nomem_timers.json");
    ASSERT_NE(tree.root.find("after"), nullptr);
    EXPECT_EQ(tree.root.find("after")->count, 100u);
    std::string failures;
    for (const auto& [k, v] : tree.metadata) {
        if (k == "profiler_failures") failures = v;
    }
    EXPECT_GT(std::atoll(failures.c_str()), 0) << "the failures are counted in the metadata";
    EXPECT_EQ(spans_named_in_trace(dir.path() / "nomem_trace.json.gz", "after"), 100);
}

}  // namespace
}  // namespace ringprof::testing
