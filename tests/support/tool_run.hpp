// Runs the `ringprof` tool the tests were built with (RINGPROF_TOOL) as a user runs it from a
// shell, under `timeout` so that a hang fails the test (exit code 124) instead of stalling CI.
// stdout and stderr are kept apart; stderr goes through a file of its own, so that tests of one
// program running side by side under `ctest -j` never read each other's messages.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

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

}  // namespace ringprof::testing
