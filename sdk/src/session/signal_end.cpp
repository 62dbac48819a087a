#include "session/signal_end.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <system_error>

#include "process/abandoned.hpp"
#include "process/last_thread.hpp"
#include "process/fork_gate.hpp"

namespace ringprof::detail {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Starting the thread, taking signals (never taken in the handler); replaced in a forked child.
std::mutex* g_mutex = new std::mutex();
int g_pipe[2] = {-1, -1};
std::atomic<int> g_signal{0};  // the signal being handled; 0: none yet

// The thread that ends the session. Coming: taken at a session's start, to be started on its
// drainer; a signal waits in the pipe for it. None: a signal kills at once, as its default does.
enum ThreadState : int { kNoThread, kThreadComing, kThreadRunning };
std::atomic<int> g_thread{kNoThread};

void die_of(int sig) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);  // blocked inside the handler: delivered, and fatal, as it returns
}

void on_signal(int sig) {
    const int saved_errno = errno;
    int expected = 0;
    if (!g_signal.compare_exchange_strong(expected, sig) || g_thread.load() == kNoThread) {
        die_of(sig);  // a second signal while the end runs, or no thread to end it: at once
        errno = saved_errno;
        return;
    }
    const char byte = 1;
    if (::write(g_pipe[1], &byte, 1) != 1) die_of(sig);
    errno = saved_errno;
}

bool is_ours(const struct sigaction& act) { return (act.sa_flags & SA_SIGINFO) == 0 && act.sa_handler == on_signal; }

void end_then_die() {
    // Also looks, a few times a second, whether the program has any thread left: this thread must
    // not keep alive a process whose session (and drainer, which looks too) has ended.
    constexpr int kLastThreadCheckMs = 250;
    char byte = 0;
    {
        ForkGateBlocked waiting;  // holds nothing while it waits: a fork does not wait for it
        for (;;) {
            pollfd wake{g_pipe[0], POLLIN, 0};
            const int ready = ::poll(&wake, 1, kLastThreadCheckMs);
            if (ready == 0) {
                if (only_ringprofs_threads_left()) exit_for_the_programs_last_thread();
                continue;
            }
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) return;
            if (::read(g_pipe[0], &byte, 1) == 1) break;
            if (errno != EINTR && errno != EAGAIN) return;
        }
    }
    const int sig = g_signal.load();
    end_sessions_for_signal();
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    struct sigaction was {};
    ::sigaction(sig, &dfl, &was);
    if (!is_ours(was)) ::sigaction(sig, &was, nullptr);  // the program's own handler came since: it runs
    // Process-directed: this thread blocks it, a thread of the program takes it.
    ::kill(::getpid(), sig);
}

}  // namespace

void take_default_signals() {
    std::lock_guard<std::mutex> lock(*g_mutex);
    if (g_signal.load() != 0) return;  // already ending
    int ours[std::size(kSignals)];
    std::size_t taken = 0;
    bool any_ours = false;
    for (int sig : kSignals) {
        struct sigaction now {};
        if (::sigaction(sig, nullptr, &now) != 0) continue;
        if (is_ours(now)) any_ours = true;  // taken before a fork: this child's thread comes now
        if ((now.sa_flags & SA_SIGINFO) == 0 && now.sa_handler == SIG_DFL) ours[taken++] = sig;
    }
    if (taken == 0 && !any_ours) return;  // the program's own handlers, all of them
    if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC) != 0) return;  // they keep their default action
    // Before a handler is in place: from the first signal on, one waits for the thread.
    int none = kNoThread;
    g_thread.compare_exchange_strong(none, kThreadComing);
    struct sigaction act {};
    act.sa_handler = on_signal;
    sigemptyset(&act.sa_mask);
    for (int other : kSignals) sigaddset(&act.sa_mask, other);
    act.sa_flags = SA_RESTART;
    for (std::size_t i = 0; i < taken; ++i) ::sigaction(ours[i], &act, nullptr);
}

void start_signal_end_thread() {
    std::lock_guard<std::mutex> lock(*g_mutex);
    if (g_thread.load() != kThreadComing) return;
    try {
        GatedThread(end_then_die).detach();  // never joined: counted until it returns, unless waiting
        g_thread.store(kThreadRunning);
    } catch (const std::system_error&) {
        g_thread.store(kNoThread);
        // Its handler saw a thread coming and left the signal in the pipe: it is not lost, it is
        // sent again with its default action (to the process: this thread blocks it).
        if (const int sig = g_signal.load()) {
            ::signal(sig, SIG_DFL);
            ::kill(::getpid(), sig);
        }
    }
}

void forget_signal_end_thread_in_child() {
    // The handler stays (dispositions are inherited); with no thread it dies at once until a
    // session starts here and starts the thread again. The pipe is the parent's too: a new one.
    g_thread.store(kNoThread);
    if (g_pipe[0] >= 0) {
        ::close(g_pipe[0]);
        ::close(g_pipe[1]);
        g_pipe[0] = g_pipe[1] = -1;
    }
    keep_abandoned(g_mutex);  // held, maybe, by a thread that did not come along
    g_mutex = new std::mutex();
    g_signal.store(0);
}

}  // namespace ringprof::detail
