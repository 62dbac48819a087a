// Every subcommand reads its command line by the same rules: an option's value may follow it
// (`--opt value`, or `-x value` where it has a short name) or be joined to it (`--opt=value`),
// with the same result; a missing value, an unknown option and a value given to an option that
// takes none are each named in one line, with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ringprof/stats.hpp"
#include "ringprof/timer_tree.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

#ifdef RINGPROF_TOOL

namespace {

namespace fs = std::filesystem;
using ringprof::testing::read_text;
using ringprof::testing::TempDir;

// What a user sees of one run: exit code, both streams, and the file the run wrote.
struct Seen {
    bool finished = false;  // false: killed at the deadline
    int code = -1;
    std::string out, err, file;
};

bool operator==(const Seen& a, const Seen& b) {
    return a.finished == b.finished && a.code == b.code && a.out == b.out && a.err == b.err && a.file == b.file;
}

std::ostream& operator<<(std::ostream& os, const Seen& s) {
    return os << "exit " << s.code << (s.finished ? "" : " (killed)") << "\n--- stdout\n"
              << s.out.substr(0, 400) << "\n--- stderr\n"
              << s.err << "--- file: " << s.file.size() << " bytes";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// `ringprof ARGS...` with the current folder `dir/work` (fresh); `file`, when given, is read
// after the run, relative to it ("{stdout}": the file whose path the run printed).
Seen run_tool(const fs::path& dir, const std::vector<std::string>& args, const std::string& file = "") {
    fs::remove_all(dir);
    fs::create_directories(dir / "work");
    const ringprof::testing::ToolExec run = ringprof::testing::exec_ringprof(dir / "work", args);
    Seen seen;
    if (!run.finished) return seen;
    seen.finished = true;
    seen.code = run.code;
    seen.out = run.out;
    seen.err = run.err;
    if (!file.empty()) {
        const std::string name = file == "{stdout}" ? first_line(seen.out) : file;
        if (!name.empty() && fs::is_regular_file(dir / "work" / name)) seen.file = read_text(dir / "work" / name);
    }
    // The merge names its file after the node, "<pid>-<host>": the one thing that differs by run.
    replace_all(seen.out, "_" + std::to_string(run.pid) + "-", "_<pid>-");
    return seen;
}

// The inputs every case may name, written afresh for each test: {flame}, {stats}, {timers},
// {merge} in a case's arguments stand for their absolute paths.
struct Inputs {
    explicit Inputs(const fs::path& dir) {
        ringprof::TimerTree tree;
        tree.root.total = 3.0;
        tree.root.count = 1;
        ringprof::TimerNode& step = tree.root.child("env_step");
        step.total = 2.0;
        step.count = 10;
        step.child("policy").total = 0.5;
        timers = (dir / "run_timers.json").string();
        std::ofstream(timers) << ringprof::write_timers_json(tree, ringprof::TimersFormat::List);

        std::vector<ringprof::FunctionStats> rows(3);
        rows[0] = {"a.cpp", 3, "forward", "", {4, 4, 0.4, 1.0}, {}};
        rows[1] = {"b.cpp", 9, "backward", "", {2, 2, 0.9, 0.9}, {}};
        rows[2] = {"c.cpp", 1, "step", "", {1, 1, 0.1, 2.0}, {}};
        stats = (dir / "run_stats.json").string();
        std::ofstream(stats) << ringprof::write_stats_json(rows, "run");

        flame = std::string(RINGPROF_TEST_SOURCE_DIR) + "/flame/fixtures/training_timers_dict.json";
        // A copy: a merge without -o writes into the folder it merges.
        merge = (dir / "merge_input").string();
        fs::copy(std::string(RINGPROF_TEST_SOURCE_DIR) + "/merge/smdebug_answer/input", merge,
                 fs::copy_options::recursive);
    }
    std::vector<std::string> expand(const std::vector<std::string>& args) const {
        std::vector<std::string> out = args;
        for (std::string& a : out) {
            if (a == "{flame}")
                a = flame;
            else if (a == "{stats}")
                a = stats;
            else if (a == "{timers}")
                a = timers;
            else if (a == "{merge}")
                a = merge;
        }
        return out;
    }
    std::string flame, stats, timers, merge;
};

// One option that takes a value, with a command line around it where it changes the output.
struct ValueOption {
    const char* command;
    const char* name;   // the long spelling, "--output"
    const char* alias;  // the short one, "-o", or "" when it has none
    const char* value;
    std::vector<std::string> others;  // the rest of the command line (operands, other options)
    const char* file;                 // the file the run writes ("" when none, "{stdout}")
};

std::ostream& operator<<(std::ostream& os, const ValueOption& o) { return os << o.command << ' ' << o.name; }

// Every option with a value of every subcommand.
const ValueOption kValueOptions[] = {
    {"flame", "--output", "-o", "page.html", {"{flame}"}, "page.html"},
    {"flame", "--format", "-f", "svg", {"{flame}", "-o", "page.out"}, "page.out"},
    {"stats", "--sort", "-s", "calls", {"{stats}"}, ""},
    {"stats", "--limit", "-n", "1", {"{stats}"}, ""},
    {"stats", "--pstats", "", "run.prof", {"{stats}"}, "run.prof"},
    {"merge-timers", "--output", "-o", "merged.json", {"{timers}", "{timers}"}, "merged.json"},
    {"merge-timers", "--graft", "", "workers/one", {"{timers}"}, ""},
    {"merge-timers", "--format", "", "dict", {"{timers}"}, ""},
    {"merge", "--output", "-o", "out", {"{merge}"}, "{stdout}"},
    {"merge", "--suffix", "", "pythontimeline.json", {"{merge}", "-o", "out"}, "{stdout}"},
    {"merge", "--start", "", "1594662605430000", {"{merge}", "--end", "1594662605460000", "-o", "out"}, "{stdout}"},
    {"merge", "--end", "", "1594662605460000", {"{merge}", "--start", "1594662605430000", "-o", "out"}, "{stdout}"},
    {"merge", "--unit", "", "step", {"{merge}", "--start", "0", "--end", "2", "-o", "out"}, "{stdout}"},
};

class EveryValueOption : public ::testing::TestWithParam<ValueOption> {};

std::vector<std::string> command_line(const ValueOption& o, const Inputs& in, const std::vector<std::string>& spelled) {
    std::vector<std::string> args{o.command};
    for (const std::string& a : in.expand(o.others)) args.push_back(a);
    args.insert(args.end(), spelled.begin(), spelled.end());
    return args;
}

TEST_P(EveryValueOption, TakesItsValueJoinedByEqualsOrAsTheNextArgumentAlike) {
    const ValueOption& o = GetParam();
    TempDir dir;
    const Inputs in(dir.path());
    const Seen apart = run_tool(dir.path() / "apart", command_line(o, in, {o.name, o.value}), o.file);
    ASSERT_TRUE(apart.finished) << "no answer within the deadline";
    ASSERT_EQ(apart.code, 0) << apart;
    ASSERT_FALSE(apart.out.empty() && apart.file.empty()) << "the run must show something to compare";
    // The option is read, not skipped: without it the run shows something else.
    const Seen without = run_tool(dir.path() / "without", command_line(o, in, {}), o.file);
    EXPECT_FALSE(without == apart) << "the value of " << o.name << " changed nothing: " << without;

    const Seen joined =
        run_tool(dir.path() / "joined", command_line(o, in, {std::string(o.name) + "=" + o.value}), o.file);
    EXPECT_EQ(joined, apart) << o.name << "=" << o.value;
    if (*o.alias != '\0') {
        const Seen aliased = run_tool(dir.path() / "alias", command_line(o, in, {o.alias, o.value}), o.file);
        EXPECT_EQ(aliased, apart) << o.alias << ' ' << o.value;
    }
}

TEST_P(EveryValueOption, WithoutAValueIsNamedInOneLineAndExitsWithTwo) {
    const ValueOption& o = GetParam();
    TempDir dir;
    const Inputs in(dir.path());
    std::vector<std::string> spellings{o.name};
    if (*o.alias != '\0') spellings.emplace_back(o.alias);
    for (const std::string& spelled : spellings) {
        // Last on the line, so nothing can be its value.
        const Seen r = run_tool(dir.path() / "run", command_line(o, in, {spelled}));
        ASSERT_TRUE(r.finished) << "no answer within the deadline";
        EXPECT_EQ(r.code, 2) << r;
        EXPECT_EQ(first_line(r.err), "ringprof " + std::string(o.command) + ": " + spelled + " needs a value") << r;
        EXPECT_EQ(r.err.find("usage: ringprof " + std::string(o.command)), first_line(r.err).size() + 1)
            << "the usage line follows: " << r;
        EXPECT_TRUE(r.out.empty()) << r;
    }
}

INSTANTIATE_TEST_SUITE_P(Cli, EveryValueOption, ::testing::ValuesIn(kValueOptions),
                         [](const ::testing::TestParamInfo<ValueOption>& option) {
                             std::string name = std::string(option.param.command) + option.param.name;
                             for (char& c : name) {
                                 if (c == '-') c = '_';
                             }
                             return name;
                         });

const char* const kCommands[] = {"flame", "stats", "merge", "merge-timers"};

TEST(EveryCommand, NamesAnUnknownOptionAsItWasWrittenAndExitsWithTwo) {
    TempDir dir;
    for (const char* command : kCommands) {
        for (const std::string option : {"--no-such-option", "--no-such-option=1", "-q"}) {
            const Seen r = run_tool(dir.path() / "run", {command, option, "input"});
            ASSERT_TRUE(r.finished) << "no answer within the deadline";
            EXPECT_EQ(r.code, 2) << command << ' ' << option << ": " << r;
            EXPECT_EQ(first_line(r.err), "ringprof " + std::string(command) + ": unknown option '" + option + "'") << r;
        }
    }
}

TEST(EveryCommand, RefusesAValueJoinedToAnOptionThatTakesNone) {
    TempDir dir;
    const Inputs in(dir.path());
    for (const char* command : kCommands) {
        const Seen r = run_tool(dir.path() / "run", {command, "--help=yes"});
        ASSERT_TRUE(r.finished) << "no answer within the deadline";
        EXPECT_EQ(r.code, 2) << command << ": " << r;
        EXPECT_EQ(first_line(r.err), "ringprof " + std::string(command) + ": --help takes no value") << r;
    }
    const Seen r = run_tool(dir.path() / "run", {"stats", in.stats, "--full-paths=yes"});
    EXPECT_EQ(r.code, 2) << r;
    EXPECT_EQ(first_line(r.err), "ringprof stats: --full-paths takes no value") << r;
}

// "-" alone is an operand (arguments.hpp): each command takes it as its input's name and says
// what it found there, never "unknown option '-'" with the usage error's exit code.
TEST(EveryCommand, TakesADashAloneAsItsInputsName) {
    TempDir dir;
    const std::pair<const char*, const char*> said[] = {
        {"flame", "ringprof flame: -: "},       {"stats", "ringprof stats: -: "},
        {"merge", "ringprof merge: -/framework"}, {"merge-timers", "ringprof merge-timers: skipped -: "},
        {"steps", "ringprof steps: -/framework"}};
    for (const auto& [command, first] : said) {
        const Seen r = run_tool(dir.path() / "run", {command, "-"});
        ASSERT_TRUE(r.finished) << "no answer within the deadline";
        EXPECT_NE(r.code, 2) << command << ": " << r;
        EXPECT_EQ(first_line(r.err).rfind(first, 0), 0u) << command << ": " << r;
    }
}

// The README's table of the tool is each command's own usage line: a row per command that
// `ringprof help` lists, in the words the command prints after a bad command line.
TEST(EveryCommand, TheReadmesToolTableIsEachCommandsOwnUsageLine) {
    std::map<std::string, std::string> readme;  // command -> its row's usage text
    {
        std::ifstream in(fs::path(RINGPROF_TEST_SOURCE_DIR).parent_path() / "README.md");
        ASSERT_TRUE(in) << "README.md not found";
        bool in_table = false;  // from the "| command | does |" header to the next blank line
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("| command | does |", 0) == 0) in_table = true;
            if (line.empty()) in_table = false;
            if (!in_table || line.rfind("| `ringprof ", 0) != 0) continue;
            std::string usage = line.substr(3, line.find('`', 3) - 3);
            replace_all(usage, "\\|", "|");  // a | inside a Markdown table cell is escaped
            const std::string command = usage.substr(9, usage.find(' ', 9) - 9);
            readme[command] = usage;
        }
    }
    TempDir dir;
    const Seen help = run_tool(dir.path() / "help", {"help"});
    ASSERT_EQ(help.code, 0) << help;
    std::set<std::string> commands;
    std::istringstream lines(help.out.substr(help.out.find("commands:")));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
        std::istringstream words(line);
        std::string command;
        words >> command;
        commands.insert(command);
    }
    ASSERT_GE(commands.size(), 8u) << help;
    for (const std::string& command : commands) {
        SCOPED_TRACE(command);
        const Seen r = run_tool(dir.path() / "run", {command, "--no-such-option"});
        const std::string after_first = r.err.substr(r.err.find('\n') + 1);
        const std::string usage = first_line(after_first);
        ASSERT_EQ(usage.rfind("usage: ", 0), 0u) << r;
        ASSERT_EQ(readme.count(command), 1u) << "no row of the README's tool table for it";
        EXPECT_EQ(readme[command], usage.substr(7));
    }
    for (const auto& [command, row] : readme) EXPECT_EQ(commands.count(command), 1u) << "the README lists " << row;
}

TEST(EveryCommand, AnswersHelpOnStandardOutputWhateverFollows) {
    TempDir dir;
    for (const char* command : kCommands) {
        for (const char* help : {"--help", "-h"}) {
            const Seen r = run_tool(dir.path() / "run", {command, help, "--no-such-option"});
            ASSERT_TRUE(r.finished) << "no answer within the deadline";
            EXPECT_EQ(r.code, 0) << command << ' ' << help << ": " << r;
            EXPECT_EQ(r.out.rfind("usage: ringprof " + std::string(command) + " ", 0), 0u) << r;
            EXPECT_TRUE(r.err.empty()) << r;
        }
    }
}

}  // namespace

#endif  // RINGPROF_TOOL
