// `ringprof steps` gives smdebug's answer: on the inputs of tests/steps/smdebug_answer (made as its
// make_input.py says), the CSVs of SageMaker Debugger's own get_step_statistics and ours hold the
// same header, the same groups in the same order and the same numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

const std::string kFixture = std::string(RINGPROF_TEST_SOURCE_DIR) + "/steps/smdebug_answer";

void expect_same_table(const std::string& ours_text, const std::string& theirs_text) {
    const auto ours = parse_csv(ours_text);
    const auto theirs = parse_csv(theirs_text);
    ASSERT_GE(theirs.size(), 3u) << "the fixture is whole";
    ASSERT_EQ(ours.size(), theirs.size()) << ours_text;
    EXPECT_EQ(ours[0], theirs[0]) << "smdebug's header, exactly";
    for (std::size_t r = 1; r < theirs.size(); ++r) {
        SCOPED_TRACE("row " + std::to_string(r) + " (" + theirs[r][0] + ")");
        ASSERT_EQ(ours[r].size(), 7u);
        EXPECT_EQ(ours[r][0], theirs[r][0]);
        for (std::size_t c = 1; c < 7; ++c) {
            const double a = std::stod(ours[r][c]), b = std::stod(theirs[r][c]);
            EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(b))) << theirs[0][c];
        }
    }
}

class StepsSmdebugAnswer : public ::testing::TestWithParam<const char*> {};

TEST_P(StepsSmdebugAnswer, SameStatisticsAsSmdebugsOwnAnalysisWithoutSystemMetrics) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    // smdebug needed a hand-set scan window on this folder: it has no system metrics.
    ASSERT_FALSE(std::filesystem::exists(kFixture + "/input/system"));
    TempDir dir;
    const std::string by = GetParam();
    const ToolRun r = run_steps(kFixture + "/input --format csv --by " + by);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    expect_same_table(r.out, read_text(kFixture + "/smdebug/" + by + ".csv"));
}

// smdebug stops with IndexError on this folder (two events after the last step); ringprof leaves
// those two out, names them on one line, and answers as smdebug does without them.
TEST_P(StepsSmdebugAnswer, EventsOutsideEveryStepAreCountedApartAndNamedOnOneLine) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    const std::string by = GetParam();
    const ToolRun r = run_steps(kFixture + "/outside_steps --format csv --by " + by);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("2 event(s) in no step"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("checkpoint_save, worker_flush"), std::string::npos) << r.err;
    expect_same_table(r.out, read_text(kFixture + "/smdebug/" + by + ".csv"));
}

INSTANTIATE_TEST_SUITE_P(Groupings, StepsSmdebugAnswer,
                         ::testing::Values("training_phase", "process", "framework_metric"));

}  // namespace
