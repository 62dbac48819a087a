// ringprof: work with saved profiles (merge timelines, print statistics, draw flame graphs).
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include "command.hpp"
#include "ringprof/version.hpp"

namespace ringprof::cli {

namespace {
std::vector<const Command*>& registry() {
    static std::vector<const Command*> all;
    return all;
}

std::string usage_text() {
    std::string s = "usage: ringprof <command> [options]\n\ncommands:\n";
    for (const Command* c : registry()) fmt::format_to(std::back_inserter(s), "  {:<14} {}\n", c->name, c->summary);
    s += "\n'ringprof <command> --help' describes one command; 'ringprof --version' prints the version.\n";
    return s;
}
}  // namespace

Command::Command(std::string_view n, std::string_view s, std::string_view u, CommandFn r)
    : name(n), summary(s), usage(u), run(r) {
    registry().push_back(this);
}

const std::vector<const Command*>& commands() { return registry(); }

void report(std::string_view command, const std::string& message) {
    fmt::print(stderr, "ringprof {}: {}\n", command, message);
}

int usage_error(std::string_view command, std::string_view usage, const std::string& message) {
    report(command, message);
    fmt::print(stderr, "{}\n(more: ringprof {} --help)\n", usage, command);
    return kExitUsage;
}

bool write_stdout(std::string_view command, std::string_view text) {
    errno = 0;
    const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 &&
                    !std::ferror(stdout);
    if (!ok) report(command, fmt::format("cannot write to standard output: {}", errno != 0 ? std::strerror(errno) : "write failed"));
    return ok;
}

}  // namespace ringprof::cli

int main(int argc, char** argv) {
    using namespace ringprof::cli;
    // A closed pipe (`ringprof ... | head`) is a write error reported like any other, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        fmt::print(stderr, "ringprof: no command given\n{}", usage_text());
        return kExitUsage;
    }
    const std::string_view first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
        if (first == "help" && argc > 2) {  // "ringprof help merge" is "ringprof merge --help"
            for (const Command* c : commands()) {
                if (c->name == argv[2]) {
                    char help[] = "--help";
                    char* sub[] = {argv[2], help, nullptr};
                    return c->run(2, sub);
                }
            }
            fmt::print(stderr, "ringprof: unknown command '{}'\n{}", argv[2], usage_text());
            return kExitUsage;
        }
        return write_stdout("help", usage_text()) ? kExitOk : kExitFailed;
    }
    if (first == "--version" || first == "-V" || first == "version") {
        return write_stdout("--version", fmt::format("ringprof {}\n", RINGPROF_VERSION_STRING)) ? kExitOk : kExitFailed;
    }
    for (const Command* c : commands()) {
        if (c->name == first) return c->run(argc - 1, argv + 1);
    }
    fmt::print(stderr, "ringprof: unknown command '{}'\n{}", argv[1], usage_text());
    return kExitUsage;
}
