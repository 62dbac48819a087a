// ringprof: work with saved profiles (merge timelines, print statistics, draw flame graphs).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
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
    for (const Command* c : registry()) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-14.*s %.*s\n", static_cast<int>(c->name.size()), c->name.data(),
                      static_cast<int>(c->summary.size()), c->summary.data());
        s += line;
    }
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
    std::fprintf(stderr, "ringprof %.*s: %s\n", static_cast<int>(command.size()), command.data(), message.c_str());
}

int usage_error(std::string_view command, std::string_view usage, const std::string& message) {
    report(command, message);
    std::fprintf(stderr, "%.*s\n(more: ringprof %.*s --help)\n", static_cast<int>(usage.size()), usage.data(),
                 static_cast<int>(command.size()), command.data());
    return kExitUsage;
}

bool write_stdout(std::string_view command, std::string_view text) {
    errno = 0;
    const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 &&
                    !std::ferror(stdout);
    if (!ok) report(command, std::string("cannot write to standard output: ") +
                                 (errno != 0 ? std::strerror(errno) : "write failed"));
    return ok;
}

}  // namespace ringprof::cli

int main(int argc, char** argv) {
    using namespace ringprof::cli;
    // A closed pipe (`ringprof ... | head`) is a write error reported like any other, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        std::fprintf(stderr, "ringprof: no command given\n%s", usage_text().c_str());
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
            std::fprintf(stderr, "ringprof: unknown command '%s'\n%s", argv[2], usage_text().c_str());
            return kExitUsage;
        }
        return write_stdout("help", usage_text()) ? kExitOk : kExitFailed;
    }
    if (first == "--version" || first == "-V" || first == "version") {
        return write_stdout("--version", std::string("ringprof ") + RINGPROF_VERSION_STRING + "\n") ? kExitOk
                                                                                                    : kExitFailed;
    }
    for (const Command* c : commands()) {
        if (c->name == first) return c->run(argc - 1, argv + 1);
    }
    std::fprintf(stderr, "ringprof: unknown command '%s'\n%s", argv[1], usage_text().c_str());
    return kExitUsage;
}
