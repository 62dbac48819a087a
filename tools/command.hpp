// Subcommands register themselves: each cmd_<name>.cpp holds one
//     static const ringprof::cli::Command command{"name", "one-line summary", &run};
// so adding a subcommand never touches main.cpp.
#pragma once

#include <string_view>
#include <vector>

namespace ringprof::cli {

// argv[0] is the subcommand's name. Returns the process exit code.
using CommandFn = int (*)(int argc, char** argv);

struct Command {
    Command(std::string_view name, std::string_view summary, CommandFn run);
    std::string_view name;
    std::string_view summary;
    CommandFn run;
};

const std::vector<const Command*>& commands();

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // nothing useful was produced
inline constexpr int kExitUsage = 2;        // bad arguments
inline constexpr int kExitPartial = 3;      // output written, but some inputs were skipped

}  // namespace ringprof::cli
