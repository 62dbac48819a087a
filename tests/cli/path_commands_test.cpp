// The subcommands that read one folder (job, rules, utilization, steps, merge) answer the same
// mistakes with the same words (tools/path_command_line.hpp): no PATH, a second PATH, and a value
// outside an option's list, each one line naming it, then the command's usage line, exit code 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text_lines.hpp"
#include "tool_run.hpp"

#ifdef RINGPROF_TOOL

namespace {

using ringprof::testing::line_at;
using ringprof::testing::run_ringprof;

// `ringprof COMMAND ARGS` refuses: exit code 2, the line "ringprof COMMAND: SAID", then the usage line.
void expect_refused(const std::string& command, const std::string& args, const std::string& said) {
    SCOPED_TRACE(command + " " + args);
    const ringprof::testing::ToolRun r = run_ringprof(command + " " + args);
    EXPECT_EQ(r.code, 2) << r.text();
    EXPECT_EQ(line_at(r.err, 0), "ringprof " + command + ": " + said) << r.text();
    EXPECT_EQ(line_at(r.err, 1).rfind("usage: ringprof " + command + " ", 0), 0u) << r.text();
    EXPECT_TRUE(r.out.empty()) << r.text();
}

const char* const kPathCommands[] = {"job", "rules", "utilization", "steps", "merge"};

TEST(PathCommands, RefuseNoPathAndASecondPathInTheSameWords) {
    for (const std::string command : kPathCommands) {
        expect_refused(command, "", "PATH is missing");
        expect_refused(command, "first second", "more than one PATH given ('first' and 'second')");
    }
}

TEST(PathCommands, NameEveryFormatTheyTakeWhenGivenAnother) {
    const std::pair<const char*, const char*> formats[] = {{"job", "table, csv or json"},
                                                           {"rules", "table or json"},
                                                           {"utilization", "table, csv or json"},
                                                           {"steps", "table, csv or json"}};
    for (const auto& [command, listed] : formats) {
        expect_refused(command, "--format xml somewhere", std::string("--format must be ") + listed + " (got 'xml')");
        expect_refused(command, "somewhere --format=", std::string("--format must be ") + listed + " (got '')");
    }
}

TEST(PathCommands, NameEveryGroupingTheyTakeWhenGivenAnother) {
    expect_refused("utilization", "--by host somewhere", "--by must be node, dimension or phase (got 'host')");
    expect_refused("steps", "--by host somewhere",
                   "--by must be training_phase, process, framework_metric or node (got 'host')");
}

TEST(PathCommands, CheckTheirOptionsTogetherOnlyOnceEveryOneIsRead) {
    expect_refused("utilization", "somewhere --device-usage --by phase",
                   "--device-usage and --by dimension or phase do not go together");
    expect_refused("steps", "somewhere --start 1", "--start and --end go together");
    expect_refused("merge", "--start 1", "PATH is missing");
}

}  // namespace

#endif  // RINGPROF_TOOL
