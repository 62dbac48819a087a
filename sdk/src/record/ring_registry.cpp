#include "record/ring_registry.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>
#include <utility>

#include "process/abandoned.hpp"
#include "record/ring_room.hpp"
#include "ringprof/detail/recorder.hpp"

namespace ringprof::detail {

namespace {

std::atomic<RingRegistry*> g_registry{nullptr};

// Retires the thread's ring when the thread ends. Touched only from the slow path, so ordinary
// markers never pay for its thread-exit registration.
struct ThreadExitHook {
    ThreadRing* ring = nullptr;
    bool exiting = false;
    ~ThreadExitHook() {
        exiting = true;
        t_ring = no_ring();
        if (ring != nullptr) ring->retire();
    }
};
thread_local ThreadExitHook t_exit_hook;

// The name a thread is shown under until set_thread_name() says otherwise: its OS name if the
// program set one, else "main" or "thread <tid>". An unnamed Linux thread inherits the
// process's name (comm), so that name alone would label every unnamed thread the same.
std::string default_thread_name(std::uint32_t tid) {
    char buf[32] = {};
    const std::string own = pthread_getname_np(pthread_self(), buf, sizeof buf) == 0 ? buf : "";
    // The kernel keeps 15 bytes of the program's name; /proc/self/comm is the main thread's
    // current name, which threads created after the main thread renamed itself inherit.
    const std::string inherited = std::string(program_invocation_short_name).substr(0, 15);
    const bool is_main = tid == static_cast<std::uint32_t>(::getpid());
    const std::string unnamed = is_main ? "main" : "thread " + std::to_string(tid);
    if (own.empty() || own == inherited) return unnamed;
    if (is_main) return own;
    // Read only here, where it decides: read for every thread, most of which carry the program's
    // name, it was more than half of a new thread's first scope (bench_scope_tail,
    // BM_ThreadFirstScope: median 5.8-7.5 us with it, 2.6-3.0 us without).
    std::string main_now;
    if (std::FILE* f = std::fopen("/proc/self/comm", "r")) {
        char line[32] = {};
        if (std::fgets(line, sizeof line, f) != nullptr) main_now = line;
        std::fclose(f);
        if (!main_now.empty() && main_now.back() == '\n') main_now.pop_back();
    }
    return own != main_now ? own : unnamed;
}

}  // namespace

RingRegistry& RingRegistry::instance() {
    // Never destroyed: threads may still exit after static destruction has begun.
    if (RingRegistry* r = g_registry.load(std::memory_order_acquire)) return *r;
    static const bool created = [] {
        g_registry.store(new RingRegistry(), std::memory_order_release);
        return true;
    }();
    static_cast<void>(created);
    return *g_registry.load(std::memory_order_acquire);
}

ThreadRing* RingRegistry::register_current_thread(std::uint64_t max_capacity) {
    ThreadExitHook& hook = t_exit_hook;
    if (hook.exiting) return nullptr;
    const std::uint64_t capacity = std::min(max_capacity, kFirstSegmentBytes / sizeof(Event));
    ThreadRing* ring = nullptr;
    std::uint64_t serial = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = std::find_if(pool_.begin(), pool_.end(), [&](ThreadRing* r) {
            return r->capacity() == capacity && r->ring().max_capacity() == max_capacity;
        });
        if (it != pool_.end()) {
            ring = *it;
            pool_.erase(it);
        }
        serial = next_serial_++;
    }
    if (ring == nullptr) {
        ring = new ThreadRing(capacity, max_capacity);
        rings_allocated_.fetch_add(1, std::memory_order_relaxed);
    }
    const auto tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    ring->claim(tid, default_thread_name(tid), serial);
    hook.ring = ring;
    ring->ring().set_drained(true);  // the drainer adopts it on its next pass
    announced_.enqueue(ring);
    return ring;
}

ThreadRing* RingRegistry::current_thread_ring() { return t_exit_hook.ring; }

void RingRegistry::recycle(ThreadRing* ring) {
    ring->ring().set_drained(false);
    std::vector<ThreadRing*> released;
    {
        // A ring whose scopes other threads still hold waits here, unused, until they have all
        // ended; looked at again whenever a ring comes back.
        std::lock_guard<std::mutex> lock(mutex_);
        held_.push_back(ring);
        const auto still_held = std::stable_partition(held_.begin(), held_.end(),
                                                      [](const ThreadRing* r) { return r->held_elsewhere(); });
        released.assign(still_held, held_.end());
        held_.erase(still_held, held_.end());
    }
    for (ThreadRing* r : released) give_back(r);
}

void RingRegistry::give_back(ThreadRing* ring) {
    if (!ring->reusable()) {
        // It grew for a hot thread: a new thread starts small again.
        delete ring;
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    pool_.push_back(ring);
}

void RingRegistry::park(std::vector<ThreadRing*> rings) {
    for (ThreadRing* r : rings) r->ring().set_drained(false);
    std::lock_guard<std::mutex> lock(mutex_);
    parked_.insert(parked_.end(), rings.begin(), rings.end());
    has_parked_.store(!parked_.empty(), std::memory_order_release);
}

std::vector<ThreadRing*> RingRegistry::take_parked() {
    std::lock_guard<std::mutex> lock(mutex_);
    has_parked_.store(false, std::memory_order_release);
    return std::exchange(parked_, {});
}

void RingRegistry::reset_after_fork() {
    keep_abandoned(g_registry.load(std::memory_order_relaxed));
    g_registry.store(new RingRegistry(),
                     std::memory_order_release);  // the parent's (and its possibly held mutex) is abandoned
    t_exit_hook.ring = nullptr;
    t_ring = no_ring();
    forget_hot_segments_after_fork();
}

}  // namespace ringprof::detail
