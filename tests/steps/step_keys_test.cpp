// A step is a step number within a mode: two step events that differ in the number alone are two
// steps of one mode, in the mode alone two rows (one step each), and in neither one step spanning
// both. Read back from `ringprof steps --format csv`.
#include <map>
#include <string>
#include <vector>

#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

struct Row {
    double mean, min, max;
};

struct StepCase {
    const char* component;
    int second_pid;  // 1: Step:ModeKeys.TRAIN, 2: Step:ModeKeys.EVAL
    const char* second_step;
    std::map<std::string, Row> rows;
};

TEST(StepKeys, TheNumberOrTheModeAloneMakesAStepAndNeitherDoes) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    // First event: TRAIN step 1 over [1000, 1010]; the second spans [2000, 2030].
    const StepCase cases[] = {
        {"nothing", 1, "1", {{"Step:ModeKeys.TRAIN", {1030, 1030, 1030}}}},
        {"number", 1, "2", {{"Step:ModeKeys.TRAIN", {20, 10, 30}}}},
        {"mode", 2, "1", {{"Step:ModeKeys.EVAL", {30, 30, 30}}, {"Step:ModeKeys.TRAIN", {10, 10, 10}}}},
    };
    for (const StepCase& c : cases) {
        SCOPED_TRACE(c.component);
        TempDir dir;
        write_timeline(dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase,
                       {{1, "Step:ModeKeys.TRAIN"}, {2, "Step:ModeKeys.EVAL"}},
                       {{"Step:ModeKeys.TRAIN", 1, 1000, 10, "{\"step_num\": 1}"},
                        {c.second_pid == 1 ? "Step:ModeKeys.TRAIN" : "Step:ModeKeys.EVAL", c.second_pid, 2000, 30,
                         std::string("{\"step_num\": ") + c.second_step + "}"}});
        const ToolRun r = run_steps(dir.str() + " --by training_phase --format csv");
        ASSERT_EQ(r.code, 0) << r.err;
        const auto csv = parse_csv(r.out);
        ASSERT_EQ(csv.size(), 1 + c.rows.size()) << r.out;
        ASSERT_EQ(csv[0].at(0), "training_phase");
        ASSERT_EQ(csv[0].at(1), "duration_mean_us");
        ASSERT_EQ(csv[0].at(2), "duration_min_us");
        ASSERT_EQ(csv[0].at(3), "duration_max_us");
        for (std::size_t i = 1; i < csv.size(); ++i) {
            const auto expected = c.rows.find(csv[i].at(0));
            ASSERT_NE(expected, c.rows.end()) << r.out;
            EXPECT_DOUBLE_EQ(std::stod(csv[i].at(1)), expected->second.mean) << r.out;
            EXPECT_DOUBLE_EQ(std::stod(csv[i].at(2)), expected->second.min) << r.out;
            EXPECT_DOUBLE_EQ(std::stod(csv[i].at(3)), expected->second.max) << r.out;
        }
    }
}

}  // namespace
