// fork() copies only the thread that calls it. A lock another thread held at that instant stays
// held in the child, by nobody. ringprof's own threads (the drainer, its helpers, the timeline
// writer, the system sampler) work in passes that allocate and call backends, so a fork landing
// mid-pass can hand the child an allocator lock or a backend's lock that is never released: the
// child's first drainer then hangs. glibc's malloc protects itself with fork handlers; other
// allocators (ASan's in clang 14: 13 hung children in 20 forks with a 1 KiB ring) and a backend's
// own locks do not.
//
// So a fork waits for ringprof's threads: each one is let finish the step it is in and parks at
// its next pause point, where it holds no lock; a thread that is sleeping or waiting for another
// is not waited for (it holds nothing while it waits, and it cannot go on until the fork is done).
// The child starts with no ringprof thread at all. The wait is bounded by kMaxForkWait, so a
// backend that blocks its thread delays a fork by that much but never blocks it; past the bound
// the fork goes ahead as it would without the gate, and says so on stderr. Forks from several
// threads at once are counted: the members stay parked until the last of them is done.
//
// A thread's own start and end allocate too (the thread library's and a sanitizer's bookkeeping,
// before its first line of ours and after its last), so a member is counted from before it is
// created until it has been joined: a GatedThread. A thread the drainer starts while a fork
// waits is waited for through its start, never copied into the child in the middle of it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

namespace ringprof::detail {

constexpr auto kMaxForkWait = std::chrono::seconds(1);

// A ringprof thread the gate counts as a member from before it is created until it is joined.
// Its body may call fork_pause_point() and hold ForkGateBlocked. Started by a thread that is not
// a counted member, it waits while a fork is under way; started by a member, it does not (the
// fork is waiting for that member, and now for this thread too, which parks at its first line).
class GatedThread {
public:
    GatedThread() noexcept = default;
    // A quiet thread (quiet_thread.hpp). Throws std::system_error if it cannot be created.
    explicit GatedThread(std::function<void()> body);
    GatedThread(GatedThread&& other) noexcept;
    GatedThread& operator=(GatedThread&& other) noexcept;
    ~GatedThread();  // joinable: ends the process, as std::thread's does
    GatedThread(const GatedThread&) = delete;
    GatedThread& operator=(const GatedThread&) = delete;

    bool joinable() const noexcept { return thread_.joinable(); }
    std::thread::id get_id() const noexcept { return thread_.get_id(); }
    void join();  // a fork no longer waits for it once it is gone
    // Nobody joins it (its owner stopped waiting for it, or never will): forks wait for it, to
    // their bound, until its body returns, except while it holds ForkGateBlocked.
    void detach();
    // A forked child's copy of a parent's thread: neither joined nor destroyed (it is not in this
    // process), and its count was the parent's gate's.
    void forget_in_child() noexcept;

private:
    struct Seat;

    std::thread thread_;
    std::shared_ptr<Seat> seat_;
};

// Tests: runs on every GatedThread started from now on, in the new thread, before its body and
// after it (where the thread library's start and end work is); null: nothing.
void set_gated_thread_edges_for_testing(void (*edge)()) noexcept;

// A point in a member's loop where it holds no lock at all: a fork that is waiting goes ahead,
// and the member goes on once it is done. One relaxed load when no fork is waiting.
void fork_pause_point() noexcept;

// For this object's life the member is blocked (asleep, or waiting for another thread) and is not
// waited for. Nothing on a thread that is not a member.
class ForkGateBlocked {
public:
    ForkGateBlocked() noexcept;
    ~ForkGateBlocked();
    ForkGateBlocked(const ForkGateBlocked&) = delete;
    ForkGateBlocked& operator=(const ForkGateBlocked&) = delete;

private:
    bool counted_;
};

// For tests: forks waiting in the gate or under way, in this process.
int forks_in_progress();

}  // namespace ringprof::detail
