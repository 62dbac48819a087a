// set_signal_handler: the program's handler runs inside a trampoline that marks the thread as
// in a handler (ringprof/signal_handler.hpp). What the trampoline reads is set before the kernel
// is told to call it, and only with atomic stores, so a signal arriving meanwhile finds either the
// old handler or the new one whole.
#include "ringprof/signal_handler.hpp"

#include <atomic>
#include <cerrno>

namespace ringprof {

namespace {

using PlainHandler = void (*)(int);
using InfoHandler = void (*)(int, siginfo_t*, void*);

struct Installed {
    std::atomic<void*> handler{nullptr};  // the program's own handler
    std::atomic<bool> with_info{false};   // SA_SIGINFO: called with three arguments
};
Installed g_installed[NSIG];

void trampoline(int sig, siginfo_t* info, void* context) {
    SignalHandlerScope in_handler;
    const Installed& installed = g_installed[sig];
    void* handler = installed.handler.load(std::memory_order_acquire);
    if (installed.with_info.load(std::memory_order_relaxed)) {
        reinterpret_cast<InfoHandler>(handler)(sig, info, context);
    } else {
        reinterpret_cast<PlainHandler>(handler)(sig);
    }
}

bool is_a_function(const struct sigaction& act) {
    return (act.sa_flags & SA_SIGINFO) != 0 || (act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN);
}

}  // namespace

int set_signal_handler(int sig, const struct sigaction* act, struct sigaction* old) noexcept {
    if (sig <= 0 || sig >= NSIG) {
        errno = EINVAL;
        return -1;
    }
    Installed& installed = g_installed[sig];
    void* const had = installed.handler.load(std::memory_order_relaxed);
    const bool had_info = installed.with_info.load(std::memory_order_relaxed);
    struct sigaction previous {};
    int rc = 0;
    if (act == nullptr || !is_a_function(*act)) {
        rc = ::sigaction(sig, act, &previous);
    } else {
        const bool with_info = (act->sa_flags & SA_SIGINFO) != 0;
        installed.with_info.store(with_info, std::memory_order_relaxed);
        installed.handler.store(
            with_info ? reinterpret_cast<void*>(act->sa_sigaction) : reinterpret_cast<void*>(act->sa_handler),
            std::memory_order_release);
        struct sigaction wrapped = *act;
        wrapped.sa_sigaction = trampoline;
        wrapped.sa_flags |= SA_SIGINFO;
        rc = ::sigaction(sig, &wrapped, &previous);
        if (rc != 0) {
            installed.with_info.store(had_info, std::memory_order_relaxed);
            installed.handler.store(had, std::memory_order_release);
        }
    }
    if (rc == 0 && old != nullptr) {
        *old = previous;
        if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction == trampoline) {
            // The program's own handler, as it installed it.
            if (had_info) {
                old->sa_sigaction = reinterpret_cast<InfoHandler>(had);
            } else {
                old->sa_flags &= ~SA_SIGINFO;
                old->sa_handler = reinterpret_cast<PlainHandler>(had);
            }
        }
    }
    return rc;
}

}  // namespace ringprof
