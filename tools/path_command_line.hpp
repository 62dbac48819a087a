// The command line of a subcommand that reads one folder, `ringprof NAME PATH [--format F] [...]`
// (job, rules, utilization, steps, merge), read once: --help, exactly one PATH, and options whose
// value is one of a list, each mistake answered with the same words whichever command made it:
//
//     StatsFormat format = StatsFormat::table;
//     std::string path;
//     if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path,
//                                                  [&](const Arguments& a) { format = chosen(a, kTableOrJson); }))
//         return *done;
//
// A mistake throws UsageError, as Arguments does, so main.cpp answers it as every bad command line
// is answered: the one line, the command's usage line, exit code kExitUsage.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/system_statistics.hpp"

namespace ringprof::cli {

// One value an option takes: its name on the command line and what it means.
template <typename T>
struct Choice {
    std::string_view name;
    T value;
};

inline constexpr Option kFormatOption{"--format", "", kTakesValue};
inline constexpr Choice<StatsFormat> kTableCsvOrJson[] = {
    {"table", StatsFormat::table}, {"csv", StatsFormat::csv}, {"json", StatsFormat::json}};
inline constexpr Choice<StatsFormat> kTableOrJson[] = {{"table", StatsFormat::table}, {"json", StatsFormat::json}};

// "--format must be table, csv or json (got 'x')": what a value outside an option's list is told.
std::string not_one_of(std::string_view option, const std::vector<std::string_view>& names, std::string_view got);

// What the current option's value names among `choices`; throws UsageError (not_one_of) for any other.
template <typename T, std::size_t N>
T chosen(const Arguments& args, const Choice<T> (&choices)[N]) {
    std::vector<std::string_view> names;
    for (const Choice<T>& c : choices) {
        if (args.value() == c.name) return c.value;
        names.push_back(c.name);
    }
    throw UsageError(not_one_of(args.written(), names, args.value()));
}

// Keeps the current operand as PATH; throws UsageError when PATH was already given.
void take_path(const Arguments& args, std::string& path);
// Throws UsageError when no PATH was given.
void require_path(const std::string& path);

// Reads the whole command line: --help writes `help`; an operand is PATH (one, required); every
// other option of `options` goes to `option`, which throws UsageError for a value it refuses.
// nullopt: go on with `path`; else the exit code to return now (after --help).
template <std::size_t N>
std::optional<int> read_path_command_line(int argc, char** argv, const Option (&options)[N], const char* command,
                                          const char* help, std::string& path,
                                          const std::function<void(const Arguments&)>& option) {
    for (Arguments args(argc, argv, options); args.next();) {
        if (args.is("--help")) return write_stdout(command, help) ? kExitOk : kExitFailed;
        if (args.is_operand())
            take_path(args, path);
        else
            option(args);
    }
    require_path(path);
    return std::nullopt;
}

}  // namespace ringprof::cli
