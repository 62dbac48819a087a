// Scenarios that could hang or that end a process (a wait for room, fork, exit, races with
// shutdown) run in a child process with a deadline: a regression fails the test instead of
// stalling CI.
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
    int exit_code = -1;     // the scenario's exit status, -1 if a signal ended it; 98: it threw
    int signal = 0;
};

// Deadline for one scenario: generous, since sanitizer builds run several times slower, yet
// far below CI's own timeout.
inline constexpr std::chrono::seconds kScenarioDeadline{60};

struct Bounds {
    std::chrono::milliseconds deadline = kScenarioDeadline;
    std::string stderr_path;  // receives the scenario's stderr when set
    // true: the child ends with std::exit, so atexit handlers and static destructors run as when
    // main returns. false: with _exit, for scenarios that leave threads running or whose exit
    // is not what they test.
    bool exit_handlers = true;
};

inline Bounds within(std::chrono::milliseconds deadline) {
    Bounds b;
    b.deadline = deadline;
    return b;
}

inline Bounds stderr_to(std::string path, std::chrono::milliseconds deadline = kScenarioDeadline) {
    Bounds b = within(deadline);
    b.stderr_path = std::move(path);
    return b;
}

inline Bounds without_exit_handlers(std::chrono::milliseconds deadline) {
    Bounds b = within(deadline);
    b.exit_handlers = false;
    return b;
}

// Runs `scenario` in a child process in its own process group; the value it returns is the
// child's exit status. Waits for the child and every process of its group it leaves behind (this
// process adopts orphans as their subreaper), not for this process's other children, and at the
// deadline kills the group.
inline Outcome run_bounded(const std::function<int()>& scenario, const Bounds& bounds = {}) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    std::fflush(nullptr);  // buffered test output must not be written twice
    const pid_t child = ::fork();
    if (child == 0) {
        ::setpgid(0, 0);
        if (!bounds.stderr_path.empty()) {
            const int fd = ::open(bounds.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (fd >= 0) ::dup2(fd, 2);
        }
        int code = 98;
        try {
            code = scenario();
        } catch (...) {
        }
        if (bounds.exit_handlers) std::exit(code);
        ::_exit(code);
    }
    ::setpgid(child, child);
    Outcome out;
    if (child < 0) return out;
    const auto give_up = std::chrono::steady_clock::now() + bounds.deadline;
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(-child, &status, WNOHANG);
        if (done < 0) break;  // none of the group left
        if (done == child) {
            out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        }
        if (done > 0) continue;
        if (std::chrono::steady_clock::now() > give_up) {
            ::kill(-child, SIGKILL);
            while (::waitpid(-child, &status, 0) > 0) {
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
