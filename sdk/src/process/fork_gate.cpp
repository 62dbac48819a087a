#include "process/fork_gate.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <system_error>

#include "process/abandoned.hpp"
#include "process/quiet_thread.hpp"

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

std::atomic<void (*)()> g_edge_for_testing{nullptr};

void run_edge_for_testing() {
    if (auto* edge = g_edge_for_testing.load(std::memory_order_relaxed)) edge();
}

}  // namespace

// One GatedThread's count in the gate of the process that created it.
struct GatedThread::Seat {
    Gate* gate = nullptr;
    bool detached = false;   // guarded by gate->mutex
    bool body_done = false;  // guarded by gate->mutex
    bool given_up = false;   // guarded by gate->mutex

    // Counts a thread about to be created. The caller, if it is a counted member, is what a
    // waiting fork waits for, so it must not wait for that fork: the new thread is counted at once
    // and parks at its first line instead.
    Seat() {
        static std::once_flag handlers;
        std::call_once(handlers, [] { ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); });
        gate = g_gate;
        std::unique_lock<std::mutex> lock(gate->mutex);
        if (forking_thread_itself() == 0) gate->changed.wait(lock, [&] { return gate->forks == 0; });
        ++gate->working;
    }

    // `when` (under the gate's mutex) decides whether the count goes now. Nothing in a forked
    // child: the count was the parent's gate's, which the child has replaced.
    template <typename When>
    void give_up_if(When when) noexcept {
        if (gate != g_gate) return;
        {
            std::lock_guard<std::mutex> lock(gate->mutex);
            if (!when() || given_up) return;
            given_up = true;
            --gate->working;
        }
        gate->changed.notify_all();
    }
};

GatedThread::GatedThread(std::function<void()> body) : seat_(std::make_shared<Seat>()) {
    try {
        thread_ = start_quiet_thread([body = std::move(body), seat = seat_] {
            run_edge_for_testing();
            t_member = true;
            fork_pause_point();
            body();
            t_member = false;
            if (seat->gate != g_gate) {
                // This thread forked and its body ended in the child, whose gate counted it.
                std::lock_guard<std::mutex> lock(g_gate->mutex);
                --g_gate->working;
            }
            seat->give_up_if([&] {
                seat->body_done = true;
                return seat->detached;  // nobody will join it
            });
            run_edge_for_testing();
        });
    } catch (const std::system_error&) {
        seat_->give_up_if([] { return true; });
        throw;
    }
}

GatedThread::GatedThread(GatedThread&& other) noexcept = default;
GatedThread& GatedThread::operator=(GatedThread&& other) noexcept = default;
GatedThread::~GatedThread() = default;

void GatedThread::join() {
    thread_.join();  // throws, as std::thread's does, if there is no thread
    seat_->give_up_if([] { return true; });
}

void GatedThread::detach() {
    thread_.detach();  // throws, as std::thread's does, if there is no thread
    Seat& seat = *seat_;
    seat.give_up_if([&] {
        seat.detached = true;
        return seat.body_done;
    });
}

void GatedThread::forget_in_child() noexcept {
    keep_abandoned(new std::thread(std::move(thread_)));
    seat_.reset();
}

void set_gated_thread_edges_for_testing(void (*edge)()) noexcept { g_edge_for_testing.store(edge, std::memory_order_relaxed); }

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
