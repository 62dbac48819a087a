// The command line: bad input and bad arguments are told as `ringprof merge` tells them.
#include <gtest/gtest.h>

#include <string>

#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

TEST(StepsCli, ExitCodesAndMessagesAreMerges) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    const std::string root = (dir.path() / "in").string();
    write_timeline(dir.path() / "in", "1-algo-1", kBase + 10000, "pythontimeline.json", kBase,
                   {{1, "Step:ModeKeys.TRAIN"}}, {{"Step:ModeKeys.TRAIN", 1, 1000, 4000, "{\"step_num\": \"1\"}"}});
    EXPECT_EQ(run_steps(root).code, 0);

    const std::string bad =
        (dir.path() / "in/framework/pevents/2020071317/1594662605020000_2-algo-2_model_timeline.json").string();
    write_file(bad, "[{\"name\": \"x\", \"ph\": \"X\", \"pid\": 1, \"ts\": 5, \"dur\": 1},\n{\"name\": ");
    const ToolRun partial = run_steps(root + " --format csv");
    EXPECT_EQ(partial.code, 3) << partial.err;
    EXPECT_NE(partial.err.find("skipped " + bad + ": "), std::string::npos) << partial.err;
    EXPECT_NE(partial.out.find("Step:ModeKeys.TRAIN,4000.0,"), std::string::npos) << partial.out;

    const ToolRun missing = run_steps(root + "/nowhere");
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("nowhere"), std::string::npos) << missing.err;
    EXPECT_EQ(run_steps(root + " --start 10 --end 5").code, 2);
    EXPECT_EQ(run_steps(root + " --by host").code, 2);
    EXPECT_EQ(run_steps(root + " --format xml").code, 2);
    EXPECT_EQ(run_steps(root + " --outlier-k -1").code, 2);
    EXPECT_EQ(run_steps(root + " --unit step").code, 2);
    EXPECT_EQ(run_steps("").code, 2);
    const ToolRun help = run_steps("--help");
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("--outlier-k"), std::string::npos);
}

}  // namespace
