// One reader of a subcommand's command line, so that every subcommand takes the same spellings
// and answers the same mistakes the same way:
//
//     const Option kOptions[] = {{"--output", "-o", kTakesValue}, {"--help", "-h", kNoValue}};
//     for (Arguments args(argc, argv, kOptions); args.next();) {
//         if (args.is("--help")) return ...;
//         else if (args.is("--output")) output = args.value();
//         else inputs.push_back(args.operand());
//     }
//
// - an option's value follows it (`--output FILE`, `-o FILE`) or is joined to its long name
//   (`--output=FILE`); the next argument is the value whatever it looks like (`--start -5`);
// - arguments are read in order, so the command decides as it meets them (`--help` first wins);
// - "-" alone and anything not starting with '-' is an operand (the command says what it means);
// - a mistake throws UsageError naming it: "unknown option '--x'" (as written), "--x needs a
//   value" (as written: -o or --output), "--x takes no value". main.cpp answers it as every bad
//   command line is answered: that line, the usage line, exit code kExitUsage. Read the arguments
//   before any catch of std::exception in the command, which would swallow it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ringprof::cli {

inline constexpr bool kTakesValue = true;
inline constexpr bool kNoValue = false;

struct Option {
    std::string_view name;   // the long spelling, "--output": what Arguments::is() is asked with
    std::string_view alias;  // a short spelling, "-o", or empty
    bool takes_value;        // kTakesValue or kNoValue
};

// A command line that is wrong; what() is the one line that says how.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Arguments {
public:
    // argv[0] is the subcommand's name; `options` are all it knows (an array that outlives the
    // reader: the command's constant kOptions).
    template <std::size_t N>
    Arguments(int argc, char** argv, const Option (&options)[N]) : Arguments(argc, argv, options, N) {}

    // Steps to the next argument; false after the last. Throws UsageError on a mistake.
    bool next();

    // The current argument is the option whose long name is `name` (in whichever spelling).
    bool is(std::string_view name) const;
    // The current option's value ("" for an option that takes none).
    const std::string& value() const { return value_; }
    // The current option as the user wrote it, without "=value": "-o" or "--output".
    const std::string& written() const { return written_; }
    // The current argument is no option (none of is() is true).
    bool is_operand() const { return option_ == nullptr; }
    // The current argument when it is no option: its text.
    const std::string& operand() const { return value_; }

private:
    Arguments(int argc, char** argv, const Option* options, std::size_t count);

    int argc_;
    char** argv_;
    const Option* options_;
    std::size_t count_;
    int at_ = 0;
    const Option* option_ = nullptr;  // the current option, or nullptr for an operand
    std::string written_;
    std::string value_;
};

}  // namespace ringprof::cli
