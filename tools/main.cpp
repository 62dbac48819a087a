// ringprof: work with saved profiles (merge timelines, print statistics, draw flame graphs).
#include <cstdio>
#include <cstring>
#include <string_view>

#include "command.hpp"

namespace ringprof::cli {

namespace {
std::vector<const Command*>& registry() {
    static std::vector<const Command*> all;
    return all;
}

void print_usage(std::FILE* out) {
    std::fprintf(out, "usage: ringprof <command> [options]\n\ncommands:\n");
    for (const Command* c : registry()) {
        std::fprintf(out, "  %-14.*s %.*s\n", static_cast<int>(c->name.size()), c->name.data(),
                     static_cast<int>(c->summary.size()), c->summary.data());
    }
    std::fprintf(out, "\n'ringprof <command> --help' describes one command.\n");
}
}  // namespace

Command::Command(std::string_view n, std::string_view s, CommandFn r) : name(n), summary(s), run(r) {
    registry().push_back(this);
}

const std::vector<const Command*>& commands() { return registry(); }

}  // namespace ringprof::cli

int main(int argc, char** argv) {
    using namespace ringprof::cli;
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? kExitUsage : kExitOk;
    }
    const std::string_view name = argv[1];
    for (const Command* c : commands()) {
        if (c->name == name) return c->run(argc - 1, argv + 1);
    }
    std::fprintf(stderr, "ringprof: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return kExitUsage;
}
