// Each step's time on every node, as the flame page's steps view draws it: the numbers behind
// `--by node` and the straggler section, with every node's median of the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "ringprof/step_statistics.hpp"
#include "steps/describe.hpp"
#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

TEST(StepsNodeTimes, TheMedianOfTheOthersOfEachValueIsTheMedianOfTheRestToTheBit) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> time(1.0, 5000.0);
    for (std::size_t n = 1; n <= 9; ++n) {
        for (int round = 0; round < 20; ++round) {
            std::vector<double> values;
            for (std::size_t i = 0; i < n; ++i)
                values.push_back(round % 3 == 0 ? std::floor(time(rng) / 1000) : time(rng));
            const std::vector<double> got = ringprof::detail::medians_of_others(values);
            if (n == 1) {
                EXPECT_TRUE(got.empty());
                continue;
            }
            ASSERT_EQ(got.size(), n);
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<double> rest = values;
                rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
                EXPECT_EQ(got[i], ringprof::detail::median_of(rest)) << "n " << n << " value " << i;
            }
        }
    }
}

TEST(StepsNodeTimes, EveryStepListsEachNodesTimeAndTheSlowestAgreesWithThem) {
    TempDir dir;
    // us[node][step]; node 3 misses step 1.
    const std::vector<std::vector<long long>> us{{1000, 1200, 900}, {1100, 1000, 3000}, {1000, 0, 950}};
    for (std::size_t n = 0; n < us.size(); ++n) {
        std::vector<Ev> events;
        for (std::size_t s = 0; s < us[n].size(); ++s) {
            if (us[n][s] == 0) continue;
            events.push_back({"Step:ModeKeys.TRAIN", 1, 100 + static_cast<long long>(s) * 10000, us[n][s],
                              "{\"step_num\": \"" + std::to_string(s) + "\"}"});
        }
        write_timeline(dir.path(), std::to_string(n + 1) + "-algo-1", kBase + 40000, "pythontimeline.json", kBase,
                       {{1, "Step:ModeKeys.TRAIN"}}, events);
    }
    const ringprof::StepAnalysis a = ringprof::analyze_steps(dir.str());
    ASSERT_EQ(a.steps.size(), 3u);
    for (std::size_t s = 0; s < 3; ++s) {
        SCOPED_TRACE("step " + std::to_string(s));
        const ringprof::StepStraggler& st = a.steps[s];
        std::vector<std::string> names;
        std::vector<double> times;
        for (std::size_t n = 0; n < us.size(); ++n) {
            if (us[n][s] == 0) continue;
            names.push_back("algo-1-" + std::to_string(n + 1));
            times.push_back(static_cast<double>(us[n][s]));
        }
        ASSERT_EQ(st.by_node.size(), names.size());
        EXPECT_EQ(st.nodes, names.size());
        for (std::size_t i = 0; i < names.size(); ++i) {
            EXPECT_EQ(st.by_node[i].node, names[i]);
            EXPECT_EQ(st.by_node[i].us, times[i]);
            std::vector<double> rest = times;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
            std::sort(rest.begin(), rest.end());
            const double m =
                rest.size() % 2 ? rest[rest.size() / 2] : (rest[rest.size() / 2 - 1] + rest[rest.size() / 2]) / 2;
            ASSERT_TRUE(st.by_node[i].median_of_others_us.has_value());
            EXPECT_EQ(*st.by_node[i].median_of_others_us, m) << names[i];
        }
        const std::size_t slowest =
            static_cast<std::size_t>(std::max_element(times.begin(), times.end()) - times.begin());
        EXPECT_EQ(st.slowest_node, names[slowest]);
        EXPECT_EQ(st.slowest_us, times[slowest]);
        EXPECT_EQ(st.median_of_others_us, st.by_node[slowest].median_of_others_us);
    }
}

}  // namespace
