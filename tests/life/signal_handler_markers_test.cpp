// Markers in a signal handler that interrupts its thread's own markers: refused and counted as
// dropped, never written over the interrupted marker's record. The thread's own counts stay exact.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bounded_process.hpp"
#include "env_session.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/signal_handler.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kScopesPerSignal = 10;
volatile sig_atomic_t g_handler_scopes = 0;  // markers the handlers ran

void hammer() {
    for (int i = 0; i < kScopesPerSignal; ++i) {
        PROF_SCOPE("in_handler");
        g_handler_scopes = g_handler_scopes + 1;
    }
}
void installed_through_ringprof(int) { hammer(); }
void marked_by_the_handler(int) {
    PROF_SIGNAL_HANDLER();
    hammer();
}

std::string metadata(const TimerTree& tree, const std::string& key) {
    for (const auto& [k, v] : tree.metadata) {
        if (k == key) return v;
    }
    return "";
}

enum class Install { ThroughRingprof, MarkedInTheHandler };

// The main thread records nested scopes flat out for a while; a timer signal every 100 us runs a
// handler that records too, landing inside the main thread's markers thousands of times. Returns
// the tree written at exit and the handler's marker count through `handler_scopes`.
TimerTree hammer_from_a_handler(const TempDir& dir, Install how, long& main_scopes, long& handler_scopes) {
    const std::string counts = dir.str() + "/counts.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "handler", "timers");
            { PROF_SCOPE("start"); }
            struct sigaction act {};
            act.sa_flags = SA_RESTART;
            if (how == Install::ThroughRingprof) {
                act.sa_handler = installed_through_ringprof;
                if (set_signal_handler(SIGALRM, &act, nullptr) != 0) return 4;
            } else {
                act.sa_handler = marked_by_the_handler;
                ::sigaction(SIGALRM, &act, nullptr);
            }
            const itimerval often{{0, 100}, {0, 100}};
            ::setitimer(ITIMER_REAL, &often, nullptr);
            long n = 0;
            const auto until = std::chrono::steady_clock::now() + 300ms;
            while (std::chrono::steady_clock::now() < until) {
                for (int i = 0; i < 1000; ++i, ++n) {
                    PROF_SCOPE("main_scope");
                    PROF_SCOPE("inner");
                }
            }
            const itimerval stop{};
            ::setitimer(ITIMER_REAL, &stop, nullptr);
            FILE* f = std::fopen(counts.c_str(), "w");
            std::fprintf(f, "%ld %ld\n", n, static_cast<long>(g_handler_scopes));
            std::fclose(f);
            return 0;
        },
        within(30s));
    EXPECT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0);
    FILE* f = std::fopen(counts.c_str(), "r");
    if (f == nullptr || std::fscanf(f, "%ld %ld", &main_scopes, &handler_scopes) != 2) ADD_FAILURE() << "no counts";
    if (f != nullptr) std::fclose(f);
    return load_timers_json(dir.str() + "/handler_timers.json");
}

bool anywhere(const TimerNode& node, const std::string& name) {
    for (const auto& child : node.children) {
        if (child.name == name || anywhere(child, name)) return true;
    }
    return false;
}

void expect_refused_and_counted(const TimerTree& tree, long main_scopes, long handler_scopes) {
    ASSERT_GT(handler_scopes, 100) << "the timer hardly fired: the test proves nothing";
    const TimerNode* main_scope = tree.root.find("main_scope");
    ASSERT_NE(main_scope, nullptr);
    EXPECT_EQ(static_cast<long>(main_scope->count), main_scopes);
    const TimerNode* inner = main_scope->find("inner");
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(static_cast<long>(inner->count), main_scopes);
    EXPECT_FALSE(anywhere(tree.root, "in_handler"));
    // Besides its own scope, only ringprof's records of the thread waiting for room (its ring at
    // the maximum while a loaded machine kept the drainer from running) or growing its ring itself
    // (it outran the drainer, which prepares segments after the session's start) may sit under it.
    for (const auto& child : main_scope->children) {
        EXPECT_TRUE(child.name == "inner" || child.name == "ringprof.wait" || child.name == "ringprof.grow")
            << child.name << " (" << child.count << ") under the main thread's scope";
    }
    EXPECT_EQ(metadata(tree, "dropped_scopes"), std::to_string(handler_scopes));
    EXPECT_EQ(metadata(tree, "dropped_scopes_in_signal_handlers"), std::to_string(handler_scopes));
    EXPECT_EQ(metadata(tree, "misnested_scopes"), "");
}

TEST(SignalHandlerMarkers, AHandlerInstalledThroughRingprofHasItsMarkersRefusedAndCounted) {
    TempDir dir;
    long main_scopes = 0, handler_scopes = 0;
    const TimerTree tree = hammer_from_a_handler(dir, Install::ThroughRingprof, main_scopes, handler_scopes);
    expect_refused_and_counted(tree, main_scopes, handler_scopes);
}

TEST(SignalHandlerMarkers, AHandlerStartingWithProfSignalHandlerHasItsMarkersRefusedAndCounted) {
    TempDir dir;
    long main_scopes = 0, handler_scopes = 0;
    const TimerTree tree = hammer_from_a_handler(dir, Install::MarkedInTheHandler, main_scopes, handler_scopes);
    expect_refused_and_counted(tree, main_scopes, handler_scopes);
}

// ---- a handler ringprof does not know of ----------------------------------------------------

constexpr int kPlainHandlerScopes = 3;
volatile sig_atomic_t g_plain_handler_scopes = 0;

void plain_handler(int) {
    for (int i = 0; i < kPlainHandlerScopes; ++i) {
        PROF_SCOPE("in_plain_handler");
        g_plain_handler_scopes = g_plain_handler_scopes + 1;
    }
}

std::uint64_t count_everywhere(const TimerNode& node, const std::string& name) {
    std::uint64_t n = 0;
    std::vector<const TimerNode*> todo{&node};
    while (!todo.empty()) {
        const TimerNode* t = todo.back();
        todo.pop_back();
        for (const auto& child : t->children) {
            if (child.name == name) n += child.count;
            todo.push_back(&child);
        }
    }
    return n;
}

long metadata_number(const TimerTree& tree, const std::string& key) {
    const std::string v = metadata(tree, key);
    return v.empty() ? 0 : std::stol(v);
}

// A handler installed with sigaction() itself, fired by another thread with pthread_kill as fast
// as it can, lands inside the recording thread's markers, between a marker's read of its ring and
// its publish. The recording thread's scopes are all in the timers file; the handler's are there
// or counted as dropped, never lost silently. (Under ThreadSanitizer, which delivers signals only
// at its own safe points, the handler never lands inside a marker: the test then only checks the
// counts add up.)
TEST(SignalHandlerMarkers, APlainSigactionHandlerLosesNothingSilently) {
    TempDir dir;
    const std::string counts = dir.str() + "/counts.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "plain", "timers");
            { PROF_SCOPE("start"); }
            struct sigaction act {};
            act.sa_flags = SA_RESTART;
            act.sa_handler = plain_handler;
            if (::sigaction(SIGUSR1, &act, nullptr) != 0) return 4;
            std::atomic<bool> stop{false};
            const pthread_t recorder = ::pthread_self();
            long signals = 0;
            std::thread killer([&] {
                while (!stop.load(std::memory_order_relaxed)) {
                    ::pthread_kill(recorder, SIGUSR1);
                    ++signals;
                    // A pause, so that on a loaded machine the recording thread gets the core
                    // between signals (pending signals of one kind are delivered once).
                    std::this_thread::sleep_for(10us);
                }
            });
            // Until the handler has run often enough, however loaded the machine is (bounded).
            long n = 0;
            const auto least = std::chrono::steady_clock::now() + 400ms;
            const auto most = std::chrono::steady_clock::now() + 20s;
            for (auto now = std::chrono::steady_clock::now();
                 now < most && (now < least || g_plain_handler_scopes < 30000); now = std::chrono::steady_clock::now()) {
                for (int i = 0; i < 1000; ++i, ++n) {
                    PROF_SCOPE("outer_plain");
                    PROF_SCOPE("inner_plain");
                }
            }
            stop.store(true);
            killer.join();
            act.sa_handler = SIG_IGN;
            ::sigaction(SIGUSR1, &act, nullptr);
            FILE* f = std::fopen(counts.c_str(), "w");
            std::fprintf(f, "%ld %ld %ld\n", n, static_cast<long>(g_plain_handler_scopes), signals);
            std::fclose(f);
            return 0;
        },
        within(60s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0);
    long outer = 0, handler = 0, signals = 0;
    FILE* f = std::fopen(counts.c_str(), "r");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fscanf(f, "%ld %ld %ld", &outer, &handler, &signals), 3);
    std::fclose(f);
    ASSERT_GT(handler, 1000) << "the handler hardly ran (" << handler << " scopes, " << signals << " signals sent): the test proves nothing";
    const TimerTree tree = load_timers_json(dir.str() + "/plain_timers.json");
    EXPECT_EQ(static_cast<long>(count_everywhere(tree.root, "outer_plain")), outer);
    EXPECT_EQ(static_cast<long>(count_everywhere(tree.root, "inner_plain")), outer);
    const long handler_in_file = static_cast<long>(count_everywhere(tree.root, "in_plain_handler"));
    EXPECT_EQ(handler_in_file + metadata_number(tree, "dropped_scopes_in_signal_handlers"), handler)
        << handler_in_file << " of the handler's scopes in the file";
    EXPECT_EQ(metadata_number(tree, "dropped_scopes"), metadata_number(tree, "dropped_scopes_in_signal_handlers"));
    EXPECT_EQ(metadata(tree, "misnested_scopes"), "");
}

void first_handler(int) {}
void second_handler(int, siginfo_t*, void*) {}

// What sigaction() would say: the program's own handler, not the wrapper around it.
TEST(SignalHandlerMarkers, SetSignalHandlerReportsTheProgramsOwnPreviousHandler) {
    struct sigaction saved {};
    ::sigaction(SIGUSR2, nullptr, &saved);
    struct sigaction first {};
    first.sa_handler = first_handler;
    ASSERT_EQ(set_signal_handler(SIGUSR2, &first, nullptr), 0);
    struct sigaction second {};
    second.sa_sigaction = second_handler;
    second.sa_flags = SA_SIGINFO;
    struct sigaction old {};
    ASSERT_EQ(set_signal_handler(SIGUSR2, &second, &old), 0);
    EXPECT_EQ(old.sa_handler, first_handler);
    EXPECT_EQ(old.sa_flags & SA_SIGINFO, 0);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ASSERT_EQ(set_signal_handler(SIGUSR2, &dfl, &old), 0);
    EXPECT_EQ(old.sa_sigaction, second_handler);
    EXPECT_NE(old.sa_flags & SA_SIGINFO, 0);
    EXPECT_EQ(set_signal_handler(0, &dfl, nullptr), -1);
    ::sigaction(SIGUSR2, &saved, nullptr);
}

}  // namespace
}  // namespace ringprof::testing
