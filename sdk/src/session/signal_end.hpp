// SIGINT, SIGTERM and SIGHUP at their default action end the process on the spot: no exit
// handler runs, so a run stopped by Ctrl-C, `kill` or a closed terminal lost every output still
// to be written. Where such a signal's disposition is SIG_DFL when a session starts, ringprof
// takes it: its handler only writes a byte to a pipe (async-signal-safe, whatever the
// interrupted thread was doing); a thread of ringprof's, with every asynchronous signal blocked,
// wakes, ends the session on an ordinary stack (the same bounded end as at exit: every output
// whole), puts the default action back and sends the signal again, so the process still dies of
// it with the status a shell expects (130 for Ctrl-C). A second such signal while the end runs
// kills at once.
//
// A program's own handlers stay its own: a disposition that is not SIG_DFL at session start is
// never touched, and a handler the program installs later replaces ringprof's (if it does so
// while the end runs, the signal is sent again to its handler). After exec the default action
// is back, as the kernel resets every handled signal.
#pragma once

namespace ringprof::detail {

// At each session start, on the thread starting it: takes the signals still at SIG_DFL (see
// above). From here a signal waits in the pipe for the thread that ends the session...
void take_default_signals();
// ...which this starts, on the drainer (the thread the outputs depend on comes first, and the
// thread starting the session does not wait for another). If it cannot, a signal that came in
// between takes its default action, as one does from then on.
void start_signal_end_thread();
// After fork, in the child: the thread that ends the session did not come along.
void forget_signal_end_thread_in_child();

// Defined by the session: ends the current session (default or explicit) as the process is
// about to die; no default session starts again.
void end_sessions_for_signal();

}  // namespace ringprof::detail
