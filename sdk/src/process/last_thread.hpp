// ringprof's threads never keep a process alive that would otherwise end. A process ends when its
// last thread does (POSIX: as if that thread called exit(0)); with ringprof's threads still there,
// one that ended every thread of its own with pthread_exit would live on for good. That happens
// in ordinary programs: a Python thread that calls os.fork() is the only thread of the child, and
// its sys.exit() ends that thread, not the process (the parent's waitpid then hung).
//
// Mechanism: ringprof's threads are counted (quiet_thread.cpp counts them from their first
// instruction to their last, so a count read at any moment never exceeds those alive). While the
// process's first thread runs, the program has a thread. Once it has ended (its /proc state is
// Z, a zombie leader stays counted until the whole group ends) and every other thread left is
// ringprof's, the program has none: a new thread calls exit(0) for it, which ends the session
// (the exit handler writes every output) and the process, with the status the last thread's end
// would have given. Checked a few times a second by the drainer while it is idle and by the
// thread that waits for signals (session/signal_end.hpp), which outlives sessions: one read of
// /proc/self/stat.
#pragma once

namespace ringprof::detail {

// ringprof's threads alive now (started by start_quiet_thread, not yet finished).
int quiet_threads_alive() noexcept;
// True when every thread of the process is one of ringprof's (the program's have all ended).
bool only_ringprofs_threads_left() noexcept;
// Ends the process as its last thread's end would have (exit(0)), from a thread of its own so
// the exit handler may wait for ringprof's threads. Does it once.
void exit_for_the_programs_last_thread() noexcept;

}  // namespace ringprof::detail
