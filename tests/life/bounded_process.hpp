// Scenarios that could hang or that end a process (fork, exit, races with shutdown) run in a
// child process with a deadline: a regression fails the test instead of stalling CI.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace ringprof::testing {

struct Outcome {
    bool finished = false;  // false: killed at the deadline (it hung)
    int exit_code = -1;     // the scenario's exit status, -1 if a signal ended it
    int signal = 0;
};

// Deadline for one scenario: generous, since sanitizer builds run several times slower, yet
// far below CI's own timeout.
inline constexpr std::chrono::seconds kScenarioDeadline{60};

// Runs `scenario` in a child process in its own process group and ends it with exit(): the
// value it returns goes to std::exit, so atexit handlers and static destructors run as when
// main returns. Waits for the child and every process it leaves behind (this process adopts
// orphans as their subreaper). `stderr_path`, if given, receives the scenario's stderr.
inline Outcome run_bounded(const std::function<int()>& scenario, const std::string& stderr_path = "",
                           std::chrono::seconds deadline = kScenarioDeadline) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    std::fflush(nullptr);  // buffered test output must not be written twice
    const pid_t child = ::fork();
    if (child == 0) {
        ::setpgid(0, 0);
        if (!stderr_path.empty()) {
            const int fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (fd >= 0) ::dup2(fd, 2);
        }
        std::exit(scenario());
    }
    ::setpgid(child, child);
    Outcome out;
    const auto give_up = std::chrono::steady_clock::now() + deadline;
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(-1, &status, WNOHANG);
        if (done < 0) break;  // no children left
        if (done == child) {
            out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        }
        if (done > 0) continue;
        if (std::chrono::steady_clock::now() > give_up) {
            ::kill(-child, SIGKILL);
            while (::waitpid(-1, &status, 0) > 0) {
            }
            return out;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    out.finished = true;
    return out;
}

inline void set_env(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }

}  // namespace ringprof::testing
