#include "process/fork_gate.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include "process/abandoned.hpp"

namespace ringprof::detail {

namespace {

struct Gate {
    std::mutex mutex;  // held by the forking thread from its wait until fork() returns
    std::condition_variable changed;
    int working = 0;  // members between pause points, not blocked
    // Forks waiting or under way. A count, not a flag: when two threads fork at once, the first
    // one's end must not let the members run past their pause points while the second still waits.
    int forks = 0;
};

Gate* g_gate = new Gate();  // replaced in a child, never destroyed (members may outlive statics)
std::atomic<bool> g_forking{false};
thread_local bool t_member = false;
thread_local bool t_blocked = false;

// The caller itself, when a member forks (a backend that calls fork()), is not waited for.
int forking_thread_itself() { return t_member && !t_blocked ? 1 : 0; }

void before_fork() {
    Gate& g = *g_gate;
    std::unique_lock<std::mutex> lock(g.mutex);
    ++g.forks;
    g_forking.store(true, std::memory_order_relaxed);
    const int self = forking_thread_itself();
    if (!g.changed.wait_for(lock, kMaxForkWait, [&] { return g.working <= self; })) {
        std::fprintf(stderr,
                     "ringprof: fork() waited %.1f s for ringprof's threads to pause (a blocked backend, or a "
                     "machine too busy to run them) and goes ahead: the child may inherit a lock one of them holds\n",
                     std::chrono::duration<double>(kMaxForkWait).count());
    }
    lock.release();  // a member that wakes meanwhile stops at the mutex until fork() returns
}

void after_fork_in_parent() {
    Gate& g = *g_gate;
    --g.forks;
    g_forking.store(g.forks > 0, std::memory_order_relaxed);
    g.mutex.unlock();
    g.changed.notify_all();
}

void after_fork_in_child() {
    keep_abandoned(g_gate);  // its mutex belongs to the parent's fork
    g_gate = new Gate();
    g_gate->working = forking_thread_itself();
    g_forking.store(false, std::memory_order_relaxed);
}

}  // namespace

ForkGateMember::ForkGateMember() {
    static std::once_flag handlers;
    std::call_once(handlers, [] { ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); });
    Gate& g = *g_gate;
    std::unique_lock<std::mutex> lock(g.mutex);
    g.changed.wait(lock, [&] { return g.forks == 0; });
    ++g.working;
    t_member = true;
}

ForkGateMember::~ForkGateMember() {
    Gate& g = *g_gate;
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        --g.working;
        t_member = false;
    }
    g.changed.notify_all();
}

void fork_pause_point() noexcept {
    if (!t_member || !g_forking.load(std::memory_order_relaxed)) return;
    Gate& g = *g_gate;
    std::unique_lock<std::mutex> lock(g.mutex);
    if (g.forks == 0) return;
    --g.working;
    g.changed.notify_all();
    g.changed.wait(lock, [&] { return g.forks == 0; });
    ++g.working;
}

ForkGateBlocked::ForkGateBlocked() noexcept : counted_(t_member && !t_blocked) {
    if (!counted_) return;
    Gate& g = *g_gate;
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        --g.working;
        t_blocked = true;
    }
    if (g_forking.load(std::memory_order_relaxed)) g.changed.notify_all();
}

// Does not wait for a fork to finish (the member may hold a lock of its caller's here, which
// another member may need to reach its pause point): the mutex alone keeps it out of the fork
// itself, and its next pause point parks it.
ForkGateBlocked::~ForkGateBlocked() {
    if (!counted_) return;
    Gate& g = *g_gate;
    std::lock_guard<std::mutex> lock(g.mutex);
    ++g.working;
    t_blocked = false;
}

int forks_in_progress() {
    Gate& g = *g_gate;
    std::lock_guard<std::mutex> lock(g.mutex);
    return g.forks;
}

}  // namespace ringprof::detail
