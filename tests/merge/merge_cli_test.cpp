// The command line: exit codes and messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "merge_fixtures.hpp"
#include "tool_run.hpp"

using namespace merge_test;

#ifdef RINGPROF_TOOL
namespace {

using ringprof::testing::ToolRun;

ToolRun run_tool(const std::string& args) { return ringprof::testing::run_ringprof("merge " + args); }

TEST(MergeCli, ExitCodesTellWhatHappened) {
    TempDir dir;
    const std::string root = dir.path().string();
    write_file(pevents_file(dir.path(), 1000, "1-a", "pythontimeline.json"),
               smdebug_timeline(900, {{"Step:ModeKeys.TRAIN", "s", 1, 2, R"({"step_num": "0"})"}}));
    const ToolRun ok = run_tool(root + " -o " + root + "/out");
    EXPECT_EQ(ok.code, 0) << ok.text();
    EXPECT_NE(ok.text().find("_merged_timeline.json"), std::string::npos);

    write_file(pevents_file(dir.path(), 1001, "1-a", "model_timeline.json"), "[{");
    const ToolRun partial = run_tool(root + " --start 0 --end 5000 -o " + root + "/out");
    EXPECT_EQ(partial.code, 3) << partial.text();
    EXPECT_NE(partial.text().find("1001_1-a_model_timeline.json"), std::string::npos) << partial.text();

    EXPECT_EQ(run_tool(root + " --start 10 --end 5").code, 2);
    EXPECT_EQ(run_tool(root + " --unit weeks").code, 2);
    EXPECT_EQ(run_tool("").code, 2);
    EXPECT_EQ(run_tool(root + "/nowhere").code, 1);
    const ToolRun help = run_tool("--help");
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.text().find("--suffix"), std::string::npos);
}

}  // namespace
#endif
