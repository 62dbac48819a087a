// Runs the `ringprof` tool the tests were built with (RINGPROF_TOOL) with a deadline, so that a
// hang fails the test instead of stalling CI, in one of two ways:
//   run_ringprof("ARGS")        as a user runs it from a shell (ARGS as a shell reads them), under
//                               `timeout` (exit code 124 at the deadline);
//   exec_ringprof(dir, {ARGS})  each argument exactly as given, no shell between, optionally with
//                               a limit on its address space, and its peak memory measured.
// stdout and stderr are kept apart; stderr goes through a file of its own, so that tests of one
// program running side by side under `ctest -j` never read each other's messages.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.hpp"

namespace ringprof::testing {

struct ToolRun {
    int code = -1;  // the exit code; 124: killed at the deadline; -1: did not run or died of a signal
    std::string out, err;
    std::string text() const { return out + err; }
};

// `ringprof ARGS` (ARGS as a shell reads them), run in `dir` when one is given.
inline ToolRun run_ringprof(const std::string& args, const std::filesystem::path& dir = {}, int deadline_s = 60) {
    ToolRun r;
#ifdef RINGPROF_TOOL
    char err_path[] = "/tmp/ringprof_tool_stderr_XXXXXX";
    const int fd = ::mkstemp(err_path);
    if (fd < 0) return r;
    ::close(fd);
    std::string cmd = dir.empty() ? std::string() : "cd '" + dir.string() + "' && ";
    cmd += "timeout " + std::to_string(deadline_s) + " '" RINGPROF_TOOL "' " + args + " 2>'" + err_path + "'";
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
        const int status = ::pclose(p);
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    r.err = read_text(err_path);
    std::remove(err_path);
#else
    (void)args;
    (void)dir;
    (void)deadline_s;
#endif
    return r;
}

// What one run of exec_ringprof gave.
struct ToolExec {
    bool finished = false;  // false: killed at the deadline
    int code = -1;          // the exit code, or 128 + the signal that ended it
    std::string out, err;
    long max_rss_kib = 0;  // its peak resident memory
    pid_t pid = -1;
};

struct ToolLimits {
    std::chrono::seconds deadline{60};
    std::size_t address_space = 0;  // bytes; 0: no limit
};

// `ringprof ARGS...` with the current folder `dir`.
inline ToolExec exec_ringprof(const std::filesystem::path& dir, const std::vector<std::string>& args,
                              const ToolLimits& limits = {}) {
    ToolExec run;
#ifdef RINGPROF_TOOL
    char out_path[] = "/tmp/ringprof_tool_stdout_XXXXXX";
    char err_path[] = "/tmp/ringprof_tool_stderr_XXXXXX";
    const int out = ::mkstemp(out_path);
    const int err = ::mkstemp(err_path);
    std::vector<char*> argv{const_cast<char*>(RINGPROF_TOOL)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = out < 0 || err < 0 ? -1 : ::fork();
    if (pid == 0) {
        if (::chdir(dir.c_str()) != 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(97);
        ::close(out);
        ::close(err);
        if (limits.address_space != 0) {
            const rlimit limit{limits.address_space, limits.address_space};
            ::setrlimit(RLIMIT_AS, &limit);
        }
        ::execv(RINGPROF_TOOL, argv.data());
        ::_exit(96);
    }
    run.pid = pid;
    const auto until = std::chrono::steady_clock::now() + limits.deadline;
    while (pid > 0) {
        int status = 0;
        rusage usage{};
        if (::wait4(pid, &status, WNOHANG, &usage) == pid) {
            run.finished = true;
            run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            run.max_rss_kib = usage.ru_maxrss;
            break;
        }
        if (std::chrono::steady_clock::now() > until) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto take = [](int fd, const char* path) {
        if (fd < 0) return std::string();
        ::close(fd);
        std::string text = read_text(path);
        std::remove(path);
        return text;
    };
    run.out = take(out, out_path);
    run.err = take(err, err_path);
#else
    (void)dir;
    (void)args;
    (void)limits;
#endif
    return run;
}

}  // namespace ringprof::testing
