// ringprof's own threads (the drainer, the timeline writer, a merge's readers and writer) are
// started with every asynchronous signal blocked, so the kernel never picks one of them for a
// signal meant for the program. A process-directed signal goes to any thread that does not block
// it; landing on the drainer, a handler that calls exit() ran the exit handler on the thread that
// exit handler waits for (abort), and on the writer it cut the trace file short. Blocked here,
// such a signal always reaches a thread of the program, which is what its handler expects.
//
// The mask is set around the thread's creation, so the new thread starts with it and never runs
// an instruction unblocked; the calling thread's mask is restored before this returns. Signals
// the kernel raises for the faulting instruction itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
// SIGSYS) and SIGABRT stay unblocked: they are meant for the thread that caused them.
#pragma once

#include <functional>
#include <thread>

namespace ringprof::detail {

// Throws std::system_error if the thread cannot be created (the caller's mask is restored).
std::thread start_quiet_thread(std::function<void()> body);

// Tests: the next `count` calls fail as pthread_create does at the process limit (EAGAIN).
void fail_thread_starts_for_testing(int count) noexcept;

}  // namespace ringprof::detail
