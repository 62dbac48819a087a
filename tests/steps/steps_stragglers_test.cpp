// Beyond smdebug: step times per node (host and process) and, per step, the slowest node against
// the others, with outlier steps by median + k * MAD. Read back from the JSON and CSV outputs.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <string>
#include <vector>

#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

// Node algo-2-2's span per step; algo-1-1 takes 1000 us in every step.
const std::vector<long long> kSlowNode = {1000, 1100, 1000, 3000, 1000, 1050};

void write_two_nodes(const std::filesystem::path& root) {
    for (int n = 1; n <= 2; ++n) {
        std::vector<Ev> events;
        for (std::size_t s = 0; s < kSlowNode.size(); ++s) {
            const long long start = 100 + static_cast<long long>(s) * 5000;
            const long long dur = n == 1 ? 1000 : kSlowNode[s];
            events.push_back({"Step:ModeKeys.TRAIN", 1, start, dur, "{\"step_num\": \"" + std::to_string(s) + "\"}"});
            events.push_back({"compute", 2, start + 10, dur / 2, ""});  // no step_num: inside its step
        }
        const std::string node = std::to_string(n) + "-algo-" + std::to_string(n);
        write_timeline(root, node, kBase + 40000, "pythontimeline.json", kBase,
                       {{1, "Step:ModeKeys.TRAIN"}, {2, "Forward"}}, events);
    }
}

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& text) {
    simdjson::dom::element doc;
    EXPECT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
    return doc;
}

TEST(StepsStragglers, EachStepNamesItsSlowestNodeAgainstTheMedianOfTheOthers) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    write_two_nodes(dir.path() / "in");
    const ToolRun r = run_steps((dir.path() / "in").string() + " --by node --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser parser;
    const simdjson::dom::element doc = parse(parser, r.out);
    EXPECT_EQ(std::string_view(doc["by"]), "node");
    const simdjson::dom::array steps = doc["steps"];
    ASSERT_EQ(steps.size(), kSlowNode.size());
    std::size_t s = 0;
    for (simdjson::dom::element st : steps) {
        SCOPED_TRACE("step " + std::to_string(s));
        EXPECT_EQ(int64_t(st["step"]), static_cast<int64_t>(s));
        EXPECT_EQ(int64_t(st["nodes"]), 2);
        // Equal times: the first node by name is named.
        EXPECT_EQ(std::string_view(st["slowest_node"]), kSlowNode[s] > 1000 ? "algo-2-2" : "algo-1-1");
        EXPECT_EQ(double(st["slowest_us"]), static_cast<double>(kSlowNode[s]));
        EXPECT_EQ(double(st["median_of_others_us"]), 1000.0);
        EXPECT_EQ(double(st["duration_us"]), static_cast<double>(kSlowNode[s]));
        ++s;
    }
    // Step times 1000 1100 1000 3000 1000 1050: median 1025, MAD 25, so above 1025 + 3 * 25 = 1100:
    // step 3 only (1100 itself is not above).
    const simdjson::dom::element outliers = doc["outliers"];
    EXPECT_EQ(double(outliers["median_us"]), 1025.0);
    EXPECT_EQ(double(outliers["mad_us"]), 25.0);
    EXPECT_EQ(double(outliers["k"]), 3.0);
    std::vector<int64_t> flagged;
    for (simdjson::dom::element e : simdjson::dom::array(outliers["steps"])) flagged.push_back(int64_t(e));
    EXPECT_EQ(flagged, std::vector<int64_t>{3});
    const simdjson::dom::array most = doc["stragglers"];
    ASSERT_EQ(most.size(), 1u) << "steps where both took as long have no straggler";
    EXPECT_EQ(std::string_view(most.at(0)["node"]), "algo-2-2");
    EXPECT_EQ(int64_t(most.at(0)["steps"]), 3);  // steps 1, 3 and 5

    // The node grouping's statistics, as for any other grouping.
    const simdjson::dom::array groups = doc["groups"];
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(std::string_view(groups.at(0)["node"]), "algo-1-1");
    EXPECT_EQ(double(groups.at(0)["duration_max_us"]), 1000.0);
    const simdjson::dom::element slow = groups.at(1);
    EXPECT_EQ(std::string_view(slow["node"]), "algo-2-2");
    EXPECT_EQ(int64_t(slow["steps"]), 6);
    EXPECT_DOUBLE_EQ(double(slow["duration_mean_us"]), 8150.0 / 6);
    EXPECT_EQ(double(slow["duration_p50_us"]), 1025.0);
    EXPECT_DOUBLE_EQ(double(slow["duration_p95_us"]), 2525.0);  // 1100 + (3000 - 1100) * 0.75
}

TEST(StepsStragglers, OutlierFactorIsSettableAndTheTableStatesTheRule) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    write_two_nodes(dir.path() / "in");
    const std::string in = (dir.path() / "in").string();
    simdjson::dom::parser parser;
    const ToolRun lenient = run_steps(in + " --format json --outlier-k 100");
    ASSERT_EQ(lenient.code, 0) << lenient.err;
    EXPECT_EQ(simdjson::dom::array(parse(parser, lenient.out)["outliers"]["steps"]).size(), 0u);
    const ToolRun strict = run_steps(in + " --format json --outlier-k 0");
    ASSERT_EQ(strict.code, 0) << strict.err;
    // Above the median itself: 1050, 1100 and 3000.
    EXPECT_EQ(simdjson::dom::array(parse(parser, strict.out)["outliers"]["steps"]).size(), 3u);

    const ToolRun table = run_steps(in + " --by node");
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_NE(table.out.find("median + k * MAD"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("1025.0 + 3 * 25.0 = 1100.0 us"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("OUTLIER"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("algo-2-2 (3 steps)"), std::string::npos) << table.out;
}

TEST(StepsStragglers, ARangeOfStepsKeepsOnlyThoseSteps) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    write_two_nodes(dir.path() / "in");
    const ToolRun r = run_steps((dir.path() / "in").string() + " --format json --unit step --start 2 --end 4");
    ASSERT_EQ(r.code, 0) << r.err;
    simdjson::dom::parser parser;
    std::vector<int64_t> steps;
    for (simdjson::dom::element st : simdjson::dom::array(parse(parser, r.out)["steps"]))
        steps.push_back(int64_t(st["step"]));
    EXPECT_EQ(steps, (std::vector<int64_t>{2, 3}));
}

}  // namespace
