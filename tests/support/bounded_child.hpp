// Runs a scenario that could hang (a wait for room, fork, process exit) in a forked child with
// a deadline, so a regression fails the test instead of stalling CI.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

namespace ringprof::testing {

struct ChildOutcome {
    bool finished = false;  // false: killed at the deadline
    int exit_code = -1;     // when it exited normally
};

// `body` returns the child's exit code (or calls exit() itself).
inline ChildOutcome run_bounded(const std::function<int()>& body, std::chrono::milliseconds deadline) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        int code = 99;
        try {
            code = body();
        } catch (...) {
            code = 98;
        }
        ::_exit(code);
    }
    ChildOutcome out;
    if (pid < 0) return out;
    const auto until = std::chrono::steady_clock::now() + deadline;
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            out.finished = true;
            out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            return out;
        }
        if (std::chrono::steady_clock::now() > until) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return out;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace ringprof::testing
