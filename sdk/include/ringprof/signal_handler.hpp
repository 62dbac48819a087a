// Markers in signal handlers.
//
// A handler interrupts its thread anywhere, in the middle of one of that thread's markers too,
// and the markers write the thread's own ring without any lock or atomic read-modify-write (that
// is what makes them cheap). A marker run by the handler would write the same slots as the
// marker it interrupted, and one of the two records would be lost. So ringprof refuses the
// markers a handler runs, and counts each one as a dropped scope (dropped_scopes): nothing a
// handler records is written, nothing it would have recorded is lost silently, and the thread's
// own scopes stay exact. This costs the markers nothing: while a handler runs, the thread's ring
// is swapped for one that never has room, so the handler's markers take the slow path, which
// refuses them.
//
// ringprof has to know that a handler runs. Either install it with ringprof::set_signal_handler
// (as sigaction(), which it calls), or start the handler with PROF_SIGNAL_HANDLER():
//
//     void on_alarm(int) {
//         PROF_SIGNAL_HANDLER();
//         PROF_SCOPE("on_alarm");   // refused and counted as dropped
//         ...
//     }
//
// A handler installed otherwise (plain sigaction) has its markers recorded, except those that
// land while a marker of the interrupted thread writes its ring: every marker points the thread
// at the refusing ring for the few instructions it writes (detail/recorder.hpp), so those are
// refused and counted the same way, and the interrupted thread's records stay exact.
// Limits: a handler that leaves with siglongjmp() leaves its thread's markers refused until the
// thread next runs PROF_SIGNAL_HANDLER's end, that is, for good: prefer returning. A plain
// handler does the same when it leaves that way from inside a marker.
#pragma once

#include <signal.h>

#include "ringprof/detail/recorder.hpp"
#include "ringprof/markers.hpp"

namespace ringprof {

// For its life, the calling thread's markers are refused and counted as dropped. Only
// async-signal-safe work: one thread-local load and store each way.
class SignalHandlerScope {
public:
    SignalHandlerScope() noexcept : saved_(detail::t_ring) { detail::t_ring = detail::signal_handler_ring(); }
    ~SignalHandlerScope() { detail::t_ring = saved_; }
    SignalHandlerScope(const SignalHandlerScope&) = delete;
    SignalHandlerScope& operator=(const SignalHandlerScope&) = delete;

private:
    detail::Ring* saved_;
};

// sigaction() for a handler that may run markers: installs `act` with its handler wrapped in a
// SignalHandlerScope. SIG_DFL and SIG_IGN are installed as they are. `old`, if not null,
// receives the previous disposition as the program set it (its own handler, not the wrapper).
// Returns what sigaction() returns (0, or -1 with errno set).
int set_signal_handler(int sig, const struct sigaction* act, struct sigaction* old) noexcept;

}  // namespace ringprof

#if RINGPROF_ENABLED
#define PROF_SIGNAL_HANDLER() ::ringprof::SignalHandlerScope RINGPROF_UNIQUE(ringprof_signal_handler_)
#else
#define PROF_SIGNAL_HANDLER() static_cast<void>(0)
#endif
