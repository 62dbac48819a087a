// A fork never hands the child a lock one of ringprof's threads held: fork() waits until the
// timeline writer and the drainer are out of the backend (or allocator) they were in, and a
// backend that never returns delays a fork but does not block it.
//
// The tests' own threads stay out of the allocator whenever a fork may happen: clang 14's ASan
// allocator is not fork-safe for any thread, so a program whose threads malloc during fork()
// hangs its children under it whatever ringprof does. Children end with _exit: LeakSanitizer
// would count the parent's threads' memory, unreachable in a child, as leaks.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bounded_process.hpp"
#include "process/fork_gate.hpp"
#include "ringprof/ringprof.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

// What ringprof says when a fork waited out its bound.
constexpr const char* kForkWentAhead = "fork() waited";

// A lock of the process that a backend takes, as a logging library's is: a forked child's
// session uses it too.
std::mutex g_process_lock;
std::atomic<bool> g_inside{false};  // a backend holds g_process_lock now
std::atomic<bool> g_let_go{false};  // tells a backend that never returns to return

enum class Hold { OnWriterBriefly, OnDrainerBriefly, OnWriterUntilLetGo };

class HoldsTheProcessLock : public Backend {
public:
    explicit HoldsTheProcessLock(Hold hold) : hold_(hold) {}
    const char* name() const override { return "holds_the_process_lock"; }
    bool wants_spans() const override { return hold_ != Hold::OnDrainerBriefly; }
    void on_spans(const SpanBatch&) override {
        if (hold_ == Hold::OnWriterBriefly) hold_briefly();
        if (hold_ == Hold::OnWriterUntilLetGo) {
            std::lock_guard<std::mutex> lock(g_process_lock);
            g_inside = true;
            while (!g_let_go) std::this_thread::sleep_for(1ms);
            g_inside = false;
        }
    }
    void on_snapshot(const Snapshot&) override {
        if (hold_ == Hold::OnDrainerBriefly) hold_briefly();
    }

private:
    static void hold_briefly() {
        std::lock_guard<std::mutex> lock(g_process_lock);
        g_inside = true;
        std::this_thread::sleep_for(50ms);  // a fork that did not wait lands in here
        g_inside = false;
    }
    Hold hold_;
};

// In a process of its own: records until the backend holds the lock, forks at that moment, and
// returns 0 if the child found the lock free, 1 if the child inherited it held, 2 if the
// backend never took it.
int fork_while_a_backend_holds_the_lock(const std::string& dir, Hold hold) {
    Config c;
    c.output_dir = dir;
    c.run_id = "gate";
    c.backends = {"timers"};
    Session session(c);
    session.add_backend(std::make_unique<HoldsTheProcessLock>(hold));
    // The flusher ends (which frees) only after the fork.
    std::atomic<bool> forked{false};
    std::thread flusher;
    if (hold == Hold::OnDrainerBriefly) {
        flusher = std::thread([&] {
            flush();
            while (!forked) std::this_thread::yield();
        });
    }
    const auto give_up = std::chrono::steady_clock::now() + 20s;
    while (!g_inside) {
        if (std::chrono::steady_clock::now() > give_up) {
            forked = true;
            if (flusher.joinable()) flusher.join();
            return 2;
        }
        PROF_SCOPE("work");
        std::this_thread::sleep_for(100us);
    }
    const pid_t child = ::fork();
    if (child == 0) ::_exit(g_process_lock.try_lock() ? 0 : 1);
    forked = true;
    g_let_go = true;
    int status = 0;
    ::waitpid(child, &status, 0);
    if (flusher.joinable()) flusher.join();
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

void expect_child_finds_the_lock_free(Hold hold) {
    TempDir dir;
    const Outcome o = run_bounded([&] { return fork_while_a_backend_holds_the_lock(dir.str(), hold); });
    ASSERT_TRUE(o.finished) << "the fork or the session hung";
    EXPECT_EQ(o.exit_code, 0) << "1: the child inherited the backend's lock held, 2: the backend never ran";
}

TEST(ForkGate, AForkWaitsUntilTheTimelineWriterIsOutOfItsBackend) {
    expect_child_finds_the_lock_free(Hold::OnWriterBriefly);
}

TEST(ForkGate, AForkWaitsUntilTheDrainerIsOutOfItsBackend) { expect_child_finds_the_lock_free(Hold::OnDrainerBriefly); }

// The bound: fork() goes ahead after kMaxForkWait. The child then does inherit the held lock
// (what every fork would do without the gate), and the parent's session ends normally.
TEST(ForkGate, ABackendThatNeverReturnsDelaysAForkButDoesNotBlockIt) {
    TempDir dir;
    const std::string stderr_path = dir.str() + "/stderr.txt";
    const Outcome o =
        run_bounded([&] { return fork_while_a_backend_holds_the_lock(dir.str(), Hold::OnWriterUntilLetGo); },
                    stderr_to(stderr_path));
    ASSERT_TRUE(o.finished) << "fork() waited for a backend that never returns";
    EXPECT_EQ(o.exit_code, 1) << "the fork went ahead while the backend held its lock";
    EXPECT_NE(read_text(stderr_path).find(kForkWentAhead), std::string::npos) << read_text(stderr_path);
}

// Two forks at once: members stay parked until the last one is done. Thread Y (no member) forks
// first and waits for the members; then member M parks, and member X forks itself (as a backend
// that calls fork() would), which needs only M parked. When X's fork is done, Y still waits for X
// and M must stay parked: a gate that kept one "forking" flag instead of counting forks cleared
// it at the end of X's fork and let M run on, and Y then waited out the whole bound for it.
int a_member_stays_parked_until_the_last_of_two_forks() {
    std::atomic<int> members{0};
    std::atomic<bool> m_may_pause{false}, m_resumed{false}, x_may_fork{false}, y_done{false};
    int ran_on_too_early = 0, x_child = -1, y_child = -1;
    detail::GatedThread m([&] {
        ++members;
        while (!m_may_pause) std::this_thread::yield();
        detail::fork_pause_point();  // parks: a fork is waiting
        m_resumed = true;
    });
    detail::GatedThread x([&] {
        ++members;
        while (!x_may_fork) std::this_thread::yield();
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        std::this_thread::sleep_for(100ms);  // time enough for M to run on, if it may
        ran_on_too_early = m_resumed ? 1 : 0;
        int status = 0;
        x_child = ::waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 3;
        detail::ForkGateBlocked waiting;  // Y's fork may go ahead; X exits after it (the allocator rule)
        while (!y_done) std::this_thread::yield();
    });
    while (members < 2) std::this_thread::yield();
    std::thread y([&] {
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        int status = 0;
        y_child = ::waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 3;
        y_done = true;
    });
    while (detail::forks_in_progress() == 0) std::this_thread::yield();  // Y is in the gate
    m_may_pause = true;
    x_may_fork = true;
    x.join();
    y.join();
    m.join();
    if (x_child != 0 || y_child != 0) return 2;
    return ran_on_too_early;
}

// Runs `scenario` bounded; it must finish with 0 and no fork may have waited out its bound.
// `codes` says what the scenario's other exit codes mean.
void expect_no_fork_went_ahead(int (*scenario)(), const char* codes) {
    TempDir dir;
    const std::string stderr_path = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(scenario, stderr_to(stderr_path));
    ASSERT_TRUE(o.finished) << "a fork or a thread hung";
    EXPECT_EQ(o.exit_code, 0) << codes;
    EXPECT_EQ(read_text(stderr_path).find(kForkWentAhead), std::string::npos) << read_text(stderr_path);
}

TEST(ForkGate, AMemberStaysParkedUntilTheLastOfTwoForksIsDone) {
    expect_no_fork_went_ahead(a_member_stays_parked_until_the_last_of_two_forks,
                              "1: the member ran on while the second fork waited, 2: a child failed");
}

// A ringprof thread's start and end, before its first line and after its last, are the thread
// library's and a sanitizer's (they allocate). The edges stand in for them: the thread is inside
// one for 300 ms, and a fork waiting meanwhile must wait for it. In the child, `done` says whether
// the fork waited: 0 it did, 1 it went ahead inside the edge.
std::atomic<int> g_edge_calls{0};
std::atomic<bool> g_in_edge{false}, g_edge_done{false};
int g_edge_to_slow = 0;  // 1: the first thread's start, 2: its end

void slow_edge() {
    if (++g_edge_calls != g_edge_to_slow) return;
    g_in_edge = true;
    std::this_thread::sleep_for(300ms);
    g_edge_done = true;
}

// Forks from a thread that is no member, once `ready` says so; the child's status goes to
// `child_status`.
void fork_and_wait(const std::atomic<bool>& ready, std::atomic<bool>& forked, int& child_status) {
    while (!ready) std::this_thread::yield();
    const pid_t child = ::fork();
    if (child == 0) ::_exit(g_edge_done ? 0 : 1);
    forked = true;
    int status = 0;
    child_status = ::waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

// The drainer starts the timeline writer, its helpers and the sampler while forks may be waiting
// for it: the new thread is counted from before it is created, so the fork waits for its start.
int a_fork_waits_for_a_thread_a_member_is_starting() {
    std::atomic<bool> member_runs{false}, fork_now{false}, forked{false};
    int child_status = -1;
    detail::GatedThread member([&] {
        member_runs = true;  // past its first line, where a waiting fork would park it
        // The fork waits for this member (one that went ahead without it has failed the test).
        while (detail::forks_in_progress() == 0 && !forked) std::this_thread::yield();
        g_edge_to_slow = 1;
        g_edge_calls = 0;
        detail::set_gated_thread_edges_for_testing(slow_edge);
        detail::GatedThread started([] {});
        detail::fork_pause_point();  // parks until the fork is done
        started.join();
    });
    std::thread forker([&] { fork_and_wait(fork_now, forked, child_status); });
    while (!member_runs) std::this_thread::yield();
    fork_now = true;
    forker.join();
    member.join();
    detail::set_gated_thread_edges_for_testing(nullptr);
    return child_status;
}

TEST(ForkGate, AForkWaitsForAThreadAMemberStartsUntilItsStartIsDone) {
    expect_no_fork_went_ahead(a_fork_waits_for_a_thread_a_member_is_starting,
                              "1: the fork went ahead while the new thread was starting, 3: the child failed");
}

// A thread that has run its last line is counted until it is joined: its end is waited for too.
int a_fork_waits_for_an_ended_thread_until_it_is_joined() {
    g_edge_to_slow = 2;
    g_edge_calls = 0;
    detail::set_gated_thread_edges_for_testing(slow_edge);
    detail::GatedThread ending([] {});
    std::atomic<bool> fork_now{false}, forked{false};
    int child_status = -1;
    std::thread forker([&] { fork_and_wait(fork_now, forked, child_status); });
    while (!g_in_edge) std::this_thread::yield();
    fork_now = true;
    while (detail::forks_in_progress() == 0 && !forked) std::this_thread::yield();
    ending.join();  // after the edge: the fork goes ahead now
    forker.join();
    detail::set_gated_thread_edges_for_testing(nullptr);
    return child_status;
}

TEST(ForkGate, AForkWaitsForAThreadThatRanItsLastLineUntilItIsJoined) {
    expect_no_fork_went_ahead(a_fork_waits_for_an_ended_thread_until_it_is_joined,
                              "1: the fork went ahead while the thread was ending, 3: the child failed");
}

// Stress: two threads fork over and over while producers flood 1 KiB rings (the drainer and the
// writer never rest) and the drainer writes snapshots every 2 ms; every child starts a session of
// its own, records exactly and ends. Without the gate, ASan's allocator hangs 13 forks in 20.
int fork_many_from_two_threads(const std::string& dir) {
    Config c;
    c.output_dir = dir;
    c.run_id = "stress";
    c.ring_bytes = 1024;
    c.flush_interval_ms = 2;
    Session session(c);
    std::atomic<bool> stop{false};
    std::atomic<int> recording{0};
    std::vector<std::thread> producers;
    for (int t = 0; t < 2; ++t) {
        producers.emplace_back([&] {
            { PROF_SCOPE("flood"); }  // this thread's ring exists before any fork
            ++recording;
            while (!stop) {
                PROF_SCOPE("flood");
            }
        });
    }
    while (recording < 2) std::this_thread::yield();
    std::atomic<int> bad{0};
    // The barriers keep the forking threads' own start (which allocates) and end (which
    // frees) away from each other's forks.
    std::atomic<int> started{0}, finished{0};
    auto fork_many = [&] {
        ++started;
        while (started < 2) std::this_thread::yield();
        for (int i = 0; i < 25; ++i) {  // not scaled: the sanitizer builds are where it hung
            const pid_t child = ::fork();
            if (child == 0) {
                // 40 events: within the child's 1 KiB ring, so what it records does not depend on
                // its new drainer being scheduled within the second a full ring waits for it.
                for (int k = 0; k < 20; ++k) {
                    PROF_SCOPE("in_child");
                }
                flush();
                ::_exit(dropped_scopes() == 0 ? 0 : 1);
            }
            int status = 0;
            if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                ++bad;
            }
        }
        ++finished;
        while (finished < 2) std::this_thread::yield();
    };
    std::thread a(fork_many), b(fork_many);
    a.join();
    b.join();
    stop = true;
    for (auto& t : producers) t.join();
    return bad.load();
}

TEST(ForkGate, ManyForksFromTwoThreadsWhileEveryRingprofThreadWorksAllFinishExact) {
    if (kThreadSanitizer) GTEST_SKIP() << "ThreadSanitizer cannot follow threads started in a forked child";
    TempDir dir;
    const Outcome o = run_bounded([&] { return fork_many_from_two_threads(dir.str()); });
    ASSERT_TRUE(o.finished) << "a forked child (or the parent) hung";
    EXPECT_EQ(o.exit_code, 0) << "children that dropped scopes or failed";
}

}  // namespace
}  // namespace ringprof::testing
