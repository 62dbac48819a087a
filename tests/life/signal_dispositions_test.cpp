// set_signal_handler passes the two dispositions that are not functions, SIG_IGN and SIG_DFL,
// to the kernel as they are: a signal is then ignored or takes its default action, exactly as
// with sigaction, and the previous disposition reads back as the program set it.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>

#include "bounded_process.hpp"
#include "ringprof/signal_handler.hpp"

namespace {

using ringprof::testing::run_bounded;

std::atomic<int> g_handled{0};
void count_it(int) { g_handled.fetch_add(1); }

struct sigaction disposition(void (*handler)(int)) {
    struct sigaction act {};
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    return act;
}

TEST(SignalDispositions, IgnoredThroughSetSignalHandlerTheSignalIsIgnored) {
    const auto outcome = run_bounded([] {
        const struct sigaction ignore = disposition(SIG_IGN);
        if (ringprof::set_signal_handler(SIGUSR1, &ignore, nullptr) != 0) return 1;
        for (int i = 0; i < 3; ++i) std::raise(SIGUSR1);
        struct sigaction now {};
        if (::sigaction(SIGUSR1, nullptr, &now) != 0) return 2;
        return now.sa_handler == SIG_IGN && (now.sa_flags & SA_SIGINFO) == 0 ? 0 : 3;
    });
    ASSERT_TRUE(outcome.finished);
    EXPECT_EQ(outcome.signal, 0) << "the ignored signal ended the process";
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST(SignalDispositions, DefaultThroughSetSignalHandlerTakesTheDefaultAction) {
    const auto outcome = run_bounded([] {
        const struct sigaction handle = disposition(count_it), fall_back = disposition(SIG_DFL);
        if (ringprof::set_signal_handler(SIGUSR1, &handle, nullptr) != 0) return 1;
        std::raise(SIGUSR1);
        if (g_handled.load() != 1) return 2;
        struct sigaction old {};
        if (ringprof::set_signal_handler(SIGUSR1, &fall_back, &old) != 0) return 3;
        if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != count_it) return 4;  // as the program set it
        std::raise(SIGUSR1);  // the default action: the process ends here
        return 5;
    });
    ASSERT_TRUE(outcome.finished);
    EXPECT_EQ(outcome.signal, SIGUSR1) << "exit code " << outcome.exit_code;
}

TEST(SignalDispositions, EachDispositionReadsBackAsThePreviousOne) {
    const auto outcome = run_bounded([] {
        const struct sigaction ignore = disposition(SIG_IGN), handle = disposition(count_it),
                               fall_back = disposition(SIG_DFL);
        struct sigaction old {};
        if (ringprof::set_signal_handler(SIGUSR2, &ignore, &old) != 0 || old.sa_handler != SIG_DFL) return 1;
        if (ringprof::set_signal_handler(SIGUSR2, &handle, &old) != 0 || old.sa_handler != SIG_IGN) return 2;
        if (ringprof::set_signal_handler(SIGUSR2, &ignore, &old) != 0 || old.sa_handler != count_it) return 3;
        std::raise(SIGUSR2);
        if (g_handled.load() != 0) return 4;  // ignored: the handler it replaced does not run
        if (ringprof::set_signal_handler(SIGUSR2, &fall_back, &old) != 0 || old.sa_handler != SIG_IGN) return 5;
        return 0;
    });
    ASSERT_TRUE(outcome.finished);
    EXPECT_EQ(outcome.signal, 0);
    EXPECT_EQ(outcome.exit_code, 0);
}

}  // namespace
