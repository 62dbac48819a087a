#include "process/quiet_thread.hpp"

#include "process/last_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <system_error>

namespace ringprof::detail {

namespace {

std::atomic<int> g_failing_starts{0};
// Counted from the thread's first instruction to its last, never before or after: a count read
// at any moment is at most the number of such threads alive (last_thread.hpp relies on it).
std::atomic<int> g_alive{0};
thread_local bool t_quiet = false;  // this thread is one of them

// Linux places a new thread on the CPU of the thread creating it, and may run it there at once.
// A program's thread whose first marker starts the session then waited for the new drainer's
// first work (faulting in ring segments) until balancing moved one of them: 1.4-4.4 ms, in 30% of
// starts on an idle 2-core machine (scheduler trace; the other core idle all along). So a thread
// the program's thread creates leaves that CPU first thing, when it may run elsewhere, and may run
// anywhere again right after: the creator waits microseconds.
void step_off_cpu(int creator_cpu) noexcept {
    if (creator_cpu < 0 || ::sched_getcpu() != creator_cpu) return;
    cpu_set_t allowed;
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    if (!CPU_ISSET(creator_cpu, &allowed) || CPU_COUNT(&allowed) < 2) return;
    cpu_set_t elsewhere = allowed;
    CPU_CLR(creator_cpu, &elsewhere);
    if (::sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return;  // moves it now
    ::sched_setaffinity(0, sizeof allowed, &allowed);
}

sigset_t asynchronous_signals() {
    sigset_t set;
    sigfillset(&set);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT}) sigdelset(&set, sig);
    return set;
}

// Restores the caller's mask however the creation ends.
class MaskedForCreation {
public:
    MaskedForCreation() {
        const sigset_t blocked = asynchronous_signals();
        ::pthread_sigmask(SIG_SETMASK, &blocked, &saved_);
    }
    ~MaskedForCreation() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
    MaskedForCreation(const MaskedForCreation&) = delete;
    MaskedForCreation& operator=(const MaskedForCreation&) = delete;

private:
    sigset_t saved_;
};

}  // namespace

std::thread start_quiet_thread(std::function<void()> body) {
    static std::once_flag forget_in_child;
    std::call_once(forget_in_child, [] {
        // A forked child has none of the parent's threads.
        ::pthread_atfork(nullptr, nullptr, [] { g_alive.store(0, std::memory_order_relaxed); });
    });
    int failing = g_failing_starts.load(std::memory_order_relaxed);
    while (failing > 0 && !g_failing_starts.compare_exchange_weak(failing, failing - 1)) {
    }
    if (failing > 0) throw std::system_error(EAGAIN, std::generic_category(), "pthread_create");
    MaskedForCreation masked;
    const int creator_cpu = t_quiet ? -1 : ::sched_getcpu();  // one of ringprof's threads may wait
    return std::thread([body = std::move(body), creator_cpu] {
        t_quiet = true;
        step_off_cpu(creator_cpu);
        g_alive.fetch_add(1, std::memory_order_relaxed);
        struct Ended {
            ~Ended() { g_alive.fetch_sub(1, std::memory_order_relaxed); }
        } ended;
        body();
    });
}

int quiet_threads_alive() noexcept { return g_alive.load(std::memory_order_relaxed); }

void fail_thread_starts_for_testing(int count) noexcept { g_failing_starts.store(count, std::memory_order_relaxed); }

}  // namespace ringprof::detail
