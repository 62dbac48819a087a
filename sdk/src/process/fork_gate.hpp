// fork() copies only the thread that calls it. A lock another thread held at that instant stays
// held in the child, by nobody. ringprof's own threads (the drainer and the timeline writer)
// work in passes that allocate and call backends, so a fork landing mid-pass can hand the child
// an allocator lock or a backend's lock that is never released: the child's first drainer then
// hangs. glibc's malloc protects itself with fork handlers; other allocators (ASan's in clang 14:
// 13 hung children in 20 forks with a 1 KiB ring) and a backend's own locks do not.
//
// So a fork waits for ringprof's threads: each one is let finish the step it is in and parks at
// its next pause point, where it holds no lock; a thread that is sleeping or waiting for another
// is not waited for (it holds nothing while it waits, and it cannot go on until the fork is done).
// The child starts with no ringprof thread at all. The wait is bounded by kMaxForkWait, so a
// backend that blocks its thread delays a fork by that much but never blocks it; past the bound
// the fork goes ahead as it would without the gate, and says so on stderr. Forks from several
// threads at once are counted: the members stay parked until the last of them is done.
#pragma once

#include <chrono>

namespace ringprof::detail {

constexpr auto kMaxForkWait = std::chrono::seconds(1);

// Counts the calling thread, for this object's life, as a ringprof thread a fork waits for.
// Made first on the thread; waits while a fork is under way.
class ForkGateMember {
public:
    ForkGateMember();
    ~ForkGateMember();
    ForkGateMember(const ForkGateMember&) = delete;
    ForkGateMember& operator=(const ForkGateMember&) = delete;
};

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
