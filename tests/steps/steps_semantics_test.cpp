// smdebug's rules at their edges, through the library: which step an event without step_num
// belongs to, and how percentiles interpolate.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>
#include <vector>

#include "ringprof/step_statistics.hpp"
#include "steps/describe.hpp"
#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

const ringprof::StepGroupStats* row(const std::vector<ringprof::StepGroupStats>& rows, const std::string& group) {
    for (const auto& r : rows)
        if (r.group == group) return &r;
    return nullptr;
}

TEST(StepsSemantics, PercentilesInterpolateLinearlyBetweenRanksAsPandasDoes) {
    // numpy.percentile([4, 1, 3, 2], [50, 95, 99]) = 2.5, 3.85, 3.97
    const ringprof::detail::Described d = ringprof::detail::describe({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(d.mean, 2.5);
    EXPECT_EQ(d.min, 1);
    EXPECT_EQ(d.max, 4);
    EXPECT_DOUBLE_EQ(d.p50, 2.5);
    EXPECT_DOUBLE_EQ(d.p95, 3.85);
    EXPECT_DOUBLE_EQ(d.p99, 3.97);
    const ringprof::detail::Described one = ringprof::detail::describe({7});
    EXPECT_EQ(one.p99, 7);
}

TEST(StepsSemantics, AnEventWithoutStepBelongsToTheLowestStepThatStrictlyContainsIt) {
    TempDir dir;
    // Steps 1 [1000, 5000] and 2 [2000, 9000] overlap (two workers out of phase).
    write_timeline(dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase,
                   {{1, "Step:ModeKeys.TRAIN"}, {2, "Forward"}},
                   {{"Step:ModeKeys.TRAIN", 1, 1000, 4000, "{\"step_num\": \"1\"}"},
                    {"Step:ModeKeys.TRAIN", 1, 2000, 7000, "{\"step_num\": \"2\"}"},
                    {"in_both", 2, 2500, 100, ""},                     // inside both: step 1
                    {"in_two", 2, 6000, 100, ""},                      // inside step 2 only
                    {"at_start", 2, 1000, 100, ""},                    // starts with step 1: not strictly inside
                    {"at_end", 2, 8900, 100, ""},                      // ends with step 2: not strictly inside
                    {"marked", 2, 8000, 500, "{\"step_num\": -1}"}});  // -1 is no step: step 2
    const ringprof::StepAnalysis a = ringprof::analyze_steps(dir.str());
    ASSERT_TRUE(a.complete());
    EXPECT_EQ(a.events_outside_steps, 2u);
    EXPECT_EQ(a.names_outside_steps, (std::vector<std::string>{"at_end", "at_start"}));
    // Forward: step 1 holds in_both alone (100 us); step 2 holds in_two and marked (6000..8500).
    const ringprof::StepGroupStats* fwd = row(a.process, "Forward");
    ASSERT_NE(fwd, nullptr);
    EXPECT_EQ(fwd->steps, 2u);
    EXPECT_EQ(fwd->min_us, 100);
    EXPECT_EQ(fwd->max_us, 2500);
    const ringprof::StepGroupStats* in_both = row(a.framework_metric, "in_both");
    ASSERT_NE(in_both, nullptr);
    EXPECT_EQ(in_both->steps, 1u);
    EXPECT_EQ(row(a.framework_metric, "at_start"), nullptr);
}

TEST(StepsSemantics, LayerNameThenArgsNameThenTheEventsNameNameTheMetric) {
    TempDir dir;
    write_timeline(
        dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase,
        {{1, "Step:ModeKeys.TRAIN"}, {2, "Forward"}},
        {{"Step:ModeKeys.TRAIN", 1, 1000, 4000, "{\"step_num\": \"1\"}"},
         {"a", 2, 1100, 10, "{\"name\": \"by_name\", \"layer_name\": \"by \\\"layer\\\"\", \"step_num\": 1}"},
         {"b", 2, 1200, 10, "{\"name\": \"by_name\"}"},
         {"c", 2, 1300, 10, "{\"name\": 7}"},
         {"plain", 2, 1400, 10, "{\"other\": \"x\"}"}});
    const ringprof::StepAnalysis a = ringprof::analyze_steps(dir.str());
    std::vector<std::string> groups;
    for (const auto& r : a.framework_metric) groups.push_back(r.group);
    EXPECT_EQ(groups, (std::vector<std::string>{"7", "Step:ModeKeys.TRAIN", "by \"layer\"", "by_name", "plain"}));
    // pandas' CSV quotes a field with a quote in it, doubling the quote.
    EXPECT_NE(
        ringprof::render_step_csv(a, ringprof::StepGrouping::framework_metric).find("\n\"by \"\"layer\"\"\",10.0,"),
        std::string::npos);
}

TEST(StepsSemantics, AStepOnOneNodeHasNoOthersToCompareWith) {
    TempDir dir;
    write_timeline(dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase, {{1, "Step:ModeKeys.TRAIN"}},
                   {{"Step:ModeKeys.TRAIN", 1, 1000, 4000, "{\"step_num\": \"1\"}"}});
    const ringprof::StepAnalysis a = ringprof::analyze_steps(dir.str());
    ASSERT_EQ(a.steps.size(), 1u);
    EXPECT_FALSE(a.steps[0].median_of_others_us.has_value());
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(ringprof::render_step_json(a, ringprof::StepGrouping::node)).get(doc), simdjson::SUCCESS);
    simdjson::dom::element step = doc["steps"].at(0);
    EXPECT_TRUE(step["median_of_others_us"].is_null());
    EXPECT_EQ(std::string_view(step["slowest_node"]), "algo-1-1");
    EXPECT_EQ(simdjson::dom::array(doc["stragglers"]).size(), 0u);
}

TEST(StepsSemantics, PastTheMemoryBudgetTheFilesAreReadAgainForTheSameAnswer) {
    const std::string fixture = std::string(RINGPROF_TEST_SOURCE_DIR) + "/steps/smdebug_answer/";
    for (const char* input : {"input", "outside_steps"}) {
        SCOPED_TRACE(input);
        const ringprof::StepAnalysis kept = ringprof::analyze_steps(fixture + input);
        ringprof::StepRequest tight;
        tight.memory_budget = 0;
        const ringprof::StepAnalysis reread = ringprof::analyze_steps(fixture + input, tight);
        EXPECT_EQ(kept.readings, 1u);
        EXPECT_EQ(reread.readings, 2u);
        for (auto by : {ringprof::StepGrouping::training_phase, ringprof::StepGrouping::process,
                        ringprof::StepGrouping::framework_metric, ringprof::StepGrouping::node}) {
            EXPECT_EQ(ringprof::render_step_json(reread, by), ringprof::render_step_json(kept, by));
        }
        EXPECT_EQ(reread.events_read, kept.events_read);
        EXPECT_EQ(reread.files_read, kept.files_read);
        EXPECT_GT(kept.framework_metric.size(), 3u);
    }
}

TEST(StepsSemantics, NoEventsGiveTheHeaderAlone) {
    TempDir dir;
    write_timeline(dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase, {}, {});
    const ringprof::StepAnalysis a = ringprof::analyze_steps(dir.str());
    EXPECT_EQ(
        ringprof::render_step_csv(a, ringprof::StepGrouping::process),
        "process,duration_mean_us,duration_min_us,duration_max_us,duration_p50_us,duration_p95_us,duration_p99_us\n");
    EXPECT_TRUE(a.steps.empty());
}

}  // namespace
