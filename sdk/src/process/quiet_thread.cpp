#include "process/quiet_thread.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <system_error>

namespace ringprof::detail {

namespace {

std::atomic<int> g_failing_starts{0};

sigset_t asynchronous_signals() {
    sigset_t set;
    sigfillset(&set);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT}) sigdelset(&set, sig);
    return set;
}

// Restores the caller's mask however the creation ends.
class MaskedForCreation {
public:
    MaskedForCreation() {
        const sigset_t blocked = asynchronous_signals();
        ::pthread_sigmask(SIG_SETMASK, &blocked, &saved_);
    }
    ~MaskedForCreation() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
    MaskedForCreation(const MaskedForCreation&) = delete;
    MaskedForCreation& operator=(const MaskedForCreation&) = delete;

private:
    sigset_t saved_;
};

}  // namespace

std::thread start_quiet_thread(std::function<void()> body) {
    int failing = g_failing_starts.load(std::memory_order_relaxed);
    while (failing > 0 && !g_failing_starts.compare_exchange_weak(failing, failing - 1)) {
    }
    if (failing > 0) throw std::system_error(EAGAIN, std::generic_category(), "pthread_create");
    MaskedForCreation masked;
    return std::thread(std::move(body));
}

void fail_thread_starts_for_testing(int count) noexcept { g_failing_starts.store(count, std::memory_order_relaxed); }

}  // namespace ringprof::detail
