// The options `merge` and `steps` share, read and checked once: which trace files (--suffix) and
// which range of them (--start/--end, in microseconds or, with --unit step, in steps). A command
// lists them in its own option table (kTraceRangeOptionNames says which) and hands each argument
// to take() before its own options.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/merged_timeline.hpp"

namespace ringprof::cli {

inline constexpr Option kSuffixOption{"--suffix", "", kTakesValue};
inline constexpr Option kStartOption{"--start", "", kTakesValue};
inline constexpr Option kEndOption{"--end", "", kTakesValue};
inline constexpr Option kUnitOption{"--unit", "", kTakesValue};

struct TraceRangeOptions {
    std::vector<std::string> suffixes;
    std::optional<std::int64_t> start, end;
    MergeUnit unit = MergeUnit::time;

    // True when the current argument is one of these options (then `error` is "" or what is
    // wrong with its value, to be answered as a usage error).
    bool take(const Arguments& args, std::string& error);
    // After the last argument: "" or what is wrong with the options together.
    std::string check() const;
};

// What every command that reads a folder (job, rules, utilization, steps, merge) answers the same
// way when reading PATH throws: a MergeError that is the range's fault (end before start, a step
// not found) is a usage error; any other, and running out of memory "while <doing>", a failure.
// nullopt when `read` returned; else the exit code.
std::optional<int> answer_read_failure(const char* command, const char* usage_line, const std::string& path,
                                       const char* doing, const std::function<void()>& read);
// After reading: each input left out, and each warning about dropped or unpaired events, is one
// stderr line.
void report_inputs(const char* command, const std::vector<SkippedInput>& skipped,
                   const std::vector<std::string>& notes);

}  // namespace ringprof::cli
