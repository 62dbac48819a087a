// The flame page's utilization lanes: a folder's system metrics (each core's CPUUtilization and
// each GPU's GPUUtilization, by node) on the timeline's clock, read back from the page's data.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "low_gpu_folder.hpp"
#include "page_data.hpp"
#include "ringprof/flame.hpp"
#include "temp_dir.hpp"

namespace {

const std::string kSystemFolder = std::string(RINGPROF_TEST_SOURCE_DIR) + "/merge/smdebug_system_answer/input";

TEST(FlameUtilizationLanes, AreEachCoreAndGpuOfEachNodeOnTheTimelinesClock) {
    const ringprof::FlameProfile p = ringprof::load_flame_profile(kSystemFolder);
    const auto& util = p.timeline.utilization;
    ASSERT_EQ(util.size(), 8u);  // 2 nodes x (2 cores + 2 GPUs)
    const char* labels[] = {"algo-1 cpu0", "algo-1 cpu1", "algo-1 gpu0", "algo-1 gpu1",
                            "algo-2 cpu0", "algo-2 cpu1", "algo-2 gpu0", "algo-2 gpu1"};
    for (std::size_t i = 0; i < util.size(); ++i) {
        EXPECT_EQ(util[i].label, labels[i]);
        EXPECT_EQ(util[i].t_ns.size(), 7u) << labels[i];  // algo-1's corrupt last line is skipped
    }
    // The first step starts the timeline at the first sample of algo-1; algo-2 samples 5 ms later.
    for (std::size_t i = 0; i < 7; ++i) {
        EXPECT_NEAR(double(util[0].t_ns[i]), i * 1e8, 1e3) << i;
        EXPECT_NEAR(double(util[4].t_ns[i]), i * 1e8 + 5e6, 1e3) << i;
        EXPECT_EQ(util[0].value[i], 10.0 + double(i));
    }
    EXPECT_EQ(util[2].value[0], 10.0);  // gpu0's first sample
    EXPECT_EQ(util[3].value[1], 30.5);  // gpu1's second
}

TEST(FlameUtilizationLanes, TravelInThePagesData) {
    const std::string data = flame_test::page_data(ringprof::render_html(ringprof::load_flame_profile(kSystemFolder)));
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS);
    simdjson::dom::array util;
    ASSERT_EQ(doc["timeline"]["util"].get(util), simdjson::SUCCESS);
    ASSERT_EQ(util.size(), 8u);
    simdjson::dom::element gpu1 = util.at(3);
    EXPECT_EQ(std::string_view(gpu1["label"]), "algo-1 gpu1");
    EXPECT_EQ(gpu1["v"].get_array().size(), 7u);
    EXPECT_EQ(double(gpu1["v"].at(1)), 30.5);
}

TEST(FlameUtilizationLanes, AreAbsentWithoutSystemMetrics) {
    ringprof::testing::TempDir dir;
    std::filesystem::copy(kSystemFolder + "/framework", dir.path() / "framework",
                          std::filesystem::copy_options::recursive);
    const ringprof::FlameProfile p = ringprof::load_flame_profile(dir.str());
    EXPECT_FALSE(p.timeline.lanes.empty());
    EXPECT_TRUE(p.timeline.utilization.empty());
    const std::string data = flame_test::page_data(ringprof::render_html(p));
    EXPECT_NE(data.find("\"util\":[]"), std::string::npos);
}

// A folder where LowGPUUtilization triggers: its finding on the page, on the timeline's clock.
TEST(FlameRuleFindings, TriggeredRulesAreOnThePageWithNodeDeviceStepsAndTimes) {
    ringprof::testing::TempDir dir;
    flame_test::write_low_gpu_folder(dir.path());
    const ringprof::FlameProfile p = ringprof::load_flame_profile(dir.str());
    ASSERT_EQ(p.timeline.findings.size(), 1u);
    const ringprof::FlameFinding& f = p.timeline.findings[0];
    EXPECT_EQ(f.rule, "LowGPUUtilization");
    EXPECT_EQ(f.node, "algo-1");
    EXPECT_EQ(f.device, "gpu0");
    EXPECT_EQ(f.steps, "300..549");                 // the last 500 samples: 300 s to 549.5 s
    EXPECT_NEAR(double(f.start_ns), 300e9, 1e3);   // the first step starts the timeline
    EXPECT_NEAR(double(f.end_ns), 549.5e9, 1e3);
    const std::string data = flame_test::page_data(ringprof::render_html(p));
    EXPECT_NE(data.find("\"findings\":[{\"rule\":\"LowGPUUtilization\",\"node\":\"algo-1\",\"device\":\"gpu0\""),
              std::string::npos);
}

}  // namespace
