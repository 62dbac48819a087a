// The steps view's numbers as the page carries them: for a folder of timelines, each node's time
// in every step, the median of the other nodes, the straggler and the outlier steps, checked
// against what this test computes from the times it wrote. A job without steps has no view.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "page_data.hpp"
#include "ringprof/flame.hpp"
#include "straggler_folder.hpp"
#include "temp_dir.hpp"

namespace {

using flame_test::StragglerJob;
using ringprof::testing::TempDir;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string page_of(const std::filesystem::path& folder) {
    return flame_test::page_data(ringprof::render_html(ringprof::load_flame_profile(folder.string())));
}

TEST(FlameStepsView, EachNodesTimeInEveryStepAndTheMedianOfTheOthersAreEmbedded) {
    TempDir dir;
    const StragglerJob job;
    flame_test::write_straggler_job(dir.path() / "job", job);
    const std::string data = page_of(dir.path() / "job");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS) << data;
    const simdjson::dom::element view = doc["steps"];
    ASSERT_TRUE(view.is_object()) << "a job with steps has the view";

    std::vector<std::string> nodes;
    for (simdjson::dom::element n : simdjson::dom::array(view["nodes"])) nodes.emplace_back(std::string_view(n));
    EXPECT_EQ(nodes, job.nodes);

    const simdjson::dom::array steps = view["steps"];
    ASSERT_EQ(steps.size(), job.steps());
    std::size_t s = 0;
    for (simdjson::dom::element st : steps) {
        SCOPED_TRACE("step " + std::to_string(s));
        EXPECT_EQ(int64_t(st["step"]), static_cast<int64_t>(s));
        const simdjson::dom::array us = st["us"], others = st["others"];
        ASSERT_EQ(us.size(), nodes.size());
        ASSERT_EQ(others.size(), nodes.size());
        double longest = 0;
        for (std::size_t n = 0; n < nodes.size(); ++n) {
            const double mine = static_cast<double>(job.us[n][s]);
            longest = std::max(longest, mine);
            std::vector<double> rest;
            for (std::size_t o = 0; o < nodes.size(); ++o)
                if (o != n) rest.push_back(static_cast<double>(job.us[o][s]));
            EXPECT_EQ(double(us.at(n)), mine) << nodes[n];
            EXPECT_EQ(double(others.at(n)), median(rest)) << nodes[n];
        }
        EXPECT_EQ(double(st["duration"]), longest);
        EXPECT_EQ(int64_t(st["slowest"]), job.straggler[s]);
        ++s;
    }

    // Outliers by the rule the page states: above the median step + 3 MAD.
    std::vector<double> durations;
    for (std::size_t k = 0; k < job.steps(); ++k) {
        double longest = 0;
        for (const auto& node : job.us) longest = std::max(longest, static_cast<double>(node[k]));
        durations.push_back(longest);
    }
    const double m = median(durations);
    std::vector<double> deviations;
    for (double d : durations) deviations.push_back(std::fabs(d - m));
    const double mad = median(deviations);
    s = 0;
    std::size_t outliers = 0;
    for (simdjson::dom::element st : steps) {
        EXPECT_EQ(bool(st["outlier"]), durations[s] > m + 3 * mad) << "step " << s;
        outliers += durations[s] > m + 3 * mad;
        ++s;
    }
    EXPECT_EQ(outliers, 1u) << "the fixture has one outlier step";
}

TEST(FlameStepsView, ANodeWithoutEventsInAStepHasNoTimeThere) {
    TempDir dir;
    StragglerJob job;
    flame_test::write_straggler_job(dir.path() / "job", job);
    // A fourth node that took part in step 2 only.
    steps_test::write_timeline(dir.path() / "job", "31-algo-3", 1594662605000000 + 70000, "pythontimeline.json",
                               1594662605000000, {{1, "Step:ModeKeys.TRAIN"}},
                               {{"Step:ModeKeys.TRAIN", 1, StragglerJob::step_start(2), 700, "{\"step_num\": \"2\"}"}});
    const std::string data = page_of(dir.path() / "job");
    simdjson::dom::parser parser;
    const simdjson::dom::element view = parser.parse(data)["steps"];
    std::vector<std::string> nodes;
    for (simdjson::dom::element n : simdjson::dom::array(view["nodes"])) nodes.emplace_back(std::string_view(n));
    ASSERT_EQ(nodes.size(), 4u);
    EXPECT_EQ(nodes[3], "algo-3-31");
    std::size_t s = 0;
    for (simdjson::dom::element st : simdjson::dom::array(view["steps"])) {
        const simdjson::dom::element mine = simdjson::dom::array(st["us"]).at(3);
        if (s == 2) {
            EXPECT_EQ(double(mine), 700.0);
            // Its others are the three nodes of the job: 1000, 1000, 1000.
            EXPECT_EQ(double(simdjson::dom::array(st["others"]).at(3)), 1000.0);
        } else {
            EXPECT_TRUE(mine.is_null()) << "step " << s;
            EXPECT_TRUE(simdjson::dom::array(st["others"]).at(3).is_null()) << "step " << s;
        }
        ++s;
    }
}

TEST(FlameStepsView, AFolderWithoutStepsHasNoView) {
    TempDir dir;
    flame_test::write_straggler_job(dir.path() / "job", StragglerJob(), false);
    const ringprof::FlameProfile profile = ringprof::load_flame_profile((dir.path() / "job").string());
    EXPECT_TRUE(profile.node_steps.empty());
    EXPECT_EQ(profile.timeline.lanes.size(), 6u) << "two threads (pids) on each of three nodes";
    simdjson::dom::parser parser;
    const std::string data = flame_test::page_data(ringprof::render_html(profile));
    EXPECT_TRUE(parser.parse(data)["steps"].is_null()) << data;
}

TEST(FlameStepsView, AFolderGivesEveryNodesThreadsTheirOwnLane) {
    TempDir dir;
    flame_test::write_straggler_job(dir.path() / "job", StragglerJob());
    const ringprof::FlameProfile profile = ringprof::load_flame_profile((dir.path() / "job").string());
    std::vector<std::string> labels;
    for (const auto& lane : profile.timeline.lanes) labels.push_back(lane.label);
    std::sort(labels.begin(), labels.end());
    // The same pids on three nodes are six processes, each named by its node first.
    ASSERT_EQ(labels.size(), 6u);
    for (const std::string& node : StragglerJob().nodes) {
        EXPECT_EQ(std::count_if(labels.begin(), labels.end(),
                                [&](const std::string& l) { return l.rfind(node + " / ", 0) == 0; }),
                  2)
            << node;
    }
    // Each node's step events, in the merged tree: six per node.
    const auto& kids = profile.merged.children;
    const auto step = std::find_if(kids.begin(), kids.end(),
                                   [](const ringprof::TimerNode& n) { return n.name == "Step:ModeKeys.TRAIN"; });
    ASSERT_NE(step, kids.end());
    EXPECT_EQ(step->count, 18u);
    EXPECT_TRUE(profile.skipped_inputs.empty());
}

}  // namespace
