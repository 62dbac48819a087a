// Which name groups an event in `ringprof steps --by framework_metric`: each args key alone, as
// smdebug reads them (args.layer_name, else args.name, else the event's name).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringprof/step_statistics.hpp"
#include "steps_fixtures.hpp"

namespace {

using namespace steps_test;

std::vector<std::string> metric_groups(const std::string& args) {
    TempDir dir;
    write_timeline(dir.path(), "1-algo-1", kBase + 10000, "pythontimeline.json", kBase,
                   {{1, "Step:ModeKeys.TRAIN"}, {2, "Forward"}},
                   {{"Step:ModeKeys.TRAIN", 1, 1000, 4000, "{\"step_num\": \"1\"}"},
                    {"event_name", 2, 1100, 10, args}});
    std::vector<std::string> groups;
    for (const auto& r : ringprof::analyze_steps(dir.str()).framework_metric)
        if (r.group != "Step:ModeKeys.TRAIN") groups.push_back(r.group);
    return groups;
}

TEST(StepsArgsKeys, EachKeyAloneNamesTheGroup) {
    EXPECT_EQ(metric_groups("{\"layer_name\": \"conv1\"}"), std::vector<std::string>{"conv1"});
    EXPECT_EQ(metric_groups("{\"name\": \"by_name\"}"), std::vector<std::string>{"by_name"});
    EXPECT_EQ(metric_groups("{\"name\": \"by_name\", \"layer_name\": \"conv2\"}"), std::vector<std::string>{"conv2"});
    EXPECT_EQ(metric_groups("{\"layer_name\": \"conv3\", \"name\": \"by_name\"}"), std::vector<std::string>{"conv3"});
    EXPECT_EQ(metric_groups("{\"tensor_name\": \"x\"}"), std::vector<std::string>{"event_name"});
    EXPECT_EQ(metric_groups(""), std::vector<std::string>{"event_name"});
}

}  // namespace
