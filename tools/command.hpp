// Subcommands register themselves: each cmd_<name>.cpp holds one
//     static const ringprof::cli::Command command{"name", "one-line summary", "usage line", &run};
// so adding a subcommand never touches main.cpp. Each reads its command line with Arguments
// (arguments.hpp), which gives every subcommand the same spellings and the same answers to mistakes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringprof::cli {

// argv[0] is the subcommand's name. Returns the process exit code.
using CommandFn = int (*)(int argc, char** argv);

struct Command {
    Command(std::string_view name, std::string_view summary, std::string_view usage, CommandFn run);
    std::string_view name;
    std::string_view summary;
    std::string_view usage;  // "usage: ringprof NAME ..." on one line, no newline
    CommandFn run;
};

const std::vector<const Command*>& commands();

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;   // nothing useful was produced (bad input, write error)
inline constexpr int kExitUsage = 2;    // bad arguments
inline constexpr int kExitPartial = 3;  // output written, but some inputs were skipped

// Every subcommand answers a bad command line the same way: one line saying what is wrong, then
// its short usage and where the long help is. Returns kExitUsage.
int usage_error(std::string_view command, std::string_view usage, const std::string& message);

// One line "ringprof NAME: message" on stderr.
void report(std::string_view command, const std::string& message);

// True when `output` is the file `input` names (the same path, a symbolic or a hard link): an
// output there would replace the input it is made from.
bool same_file(const std::string& input, const std::string& output);

// "out of memory while reading PATH": what every subcommand says of a std::bad_alloc.
std::string out_of_memory(const std::string& path);

// Writes to standard output and flushes; false (after reporting, naming standard output) when the
// bytes did not all arrive, e.g. `> /dev/full` or a closed pipe.
bool write_stdout(std::string_view command, std::string_view text);

}  // namespace ringprof::cli
