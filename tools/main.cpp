// ringprof: work with saved profiles (merge timelines, print statistics, draw flame graphs).
#include <fmt/format.h>

#include <sys/stat.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <string>
#include <string_view>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/version.hpp"

namespace ringprof::cli {

namespace {
std::vector<const Command*>& registry() {
    static std::vector<const Command*> all;
    return all;
}

// The command line after the subcommand's name, for a message that has nothing more precise.
std::string arguments(int argc, char** argv) {
    std::string s;
    for (int i = 2; i < argc; ++i) s += (i > 2 ? " " : "") + std::string(argv[i]);
    return s;
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

bool same_file(const std::string& input, const std::string& output) {
    struct stat a {
    }, b{};
    if (::stat(input.c_str(), &a) != 0 || ::stat(output.c_str(), &b) != 0) return false;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

std::string out_of_memory(const std::string& path) { return fmt::format("{}: out of memory while reading it", path); }

bool write_stdout(std::string_view command, std::string_view text) {
    errno = 0;
    const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0 &&
                    !std::ferror(stdout);
    if (!ok)
        report(command,
               fmt::format("cannot write to standard output: {}", errno != 0 ? std::strerror(errno) : "write failed"));
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
        if (c->name != first) continue;
        // Subcommands name the file they were reading; this is the last resort that keeps an
        // exception from aborting the program with no word of what it was working on.
        try {
            return c->run(argc - 1, argv + 1);
        } catch (const UsageError& e) {  // thrown while reading the command line, before the command did anything
            return usage_error(c->name, c->usage, e.what());
        } catch (const std::bad_alloc&) {
            report(c->name, fmt::format("out of memory working on {} (nothing written)", arguments(argc, argv)));
        } catch (const std::exception& e) {
            report(c->name, fmt::format("{} (working on {})", e.what(), arguments(argc, argv)));
        }
        return kExitFailed;
    }
    fmt::print(stderr, "ringprof: unknown command '{}'\n{}", argv[1], usage_text());
    return kExitUsage;
}
