// ringprof utilization: smdebug's PandasFrameAnalysis numbers to the last digit. The answers in
// tests/merge/smdebug_system_answer/smdebug_*.csv were written by smdebug's own code
// (smdebug_system_stats.py of the shared tools beside the project, not part of it) on that fixture's input; numpy's own numbers for the
// summation and percentile checks were printed by numpy 1.24.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringprof/system_statistics.hpp"
#include "system_stats/numpy_numbers.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace {

using ringprof::testing::read_text;
namespace d = ringprof::detail;

const std::string kAnswer = std::string(RINGPROF_TEST_SOURCE_DIR) + "/merge/smdebug_system_answer";

std::string repr(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

TEST(NumpyNumbers, SumPairwiseAsNumpyDoesNotInOrder) {
    const double scale[] = {1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    std::vector<double> v;
    for (int i = 0; i < 20000; ++i) v.push_back(double((i * 7919) % 10007 + 1) * scale[(i * 31) % 13] / 7.0);
    EXPECT_EQ(d::numpy_sum(v), 1222570918734135.5);  // numpy's v.sum(); adding in order gives another
    double in_order = 0;
    for (double x : v) in_order += x;
    EXPECT_NE(in_order, 1222570918734135.5) << "the data does not tell the two sums apart";
    EXPECT_EQ(d::numpy_mean(v), 61128545936.70677);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(d::numpy_percentile_linear(v, 0.5), 638642.857142857);
    EXPECT_EQ(d::numpy_percentile_linear(v, 0.95), 507435714285.7142);
    EXPECT_EQ(d::numpy_percentile_linear(v, 0.99), 1241715714285.7139);
}

TEST(NumpyNumbers, PercentilesInterpolateAsNumpysLinearMethod) {
    const std::vector<double> w = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7};
    EXPECT_EQ(repr(d::numpy_percentile_linear(w, 0.5)), repr(0.4));
    EXPECT_EQ(repr(d::numpy_percentile_linear(w, 0.95)), repr(0.6699999999999999));  // from the upper value
    EXPECT_EQ(repr(d::numpy_percentile_linear(w, 0.99)), repr(0.694));
    EXPECT_EQ(d::numpy_percentile_linear({5.0}, 0.99), 5.0);
}

TEST(SystemStatistics, UtilizationIsSmdebugsToTheLastDigit) {
    const ringprof::SystemStatistics s = ringprof::analyze_system_metrics(kAnswer + "/input");
    EXPECT_TRUE(s.notes.empty());
    EXPECT_EQ(s.rows, 126u);  // 63 rows a node; the corrupt last line is skipped
    EXPECT_EQ(ringprof::render_utilization(s, ringprof::StatsFormat::csv),
              read_text(kAnswer + "/smdebug_utilization.csv"));
}

TEST(SystemStatistics, DeviceUsageIsSmdebugs) {
    const ringprof::SystemStatistics s = ringprof::analyze_system_metrics(kAnswer + "/input");
    EXPECT_EQ(ringprof::render_device_usage(s, ringprof::StatsFormat::csv),
              read_text(kAnswer + "/smdebug_device_usage.csv"));
}

TEST(SystemStatistics, SplitByDimensionKeepsCpuTimeAndIoWaitApart) {
    const ringprof::SystemStatistics s = ringprof::analyze_system_metrics(kAnswer + "/input");
    int cpu_rows = 0;
    for (const auto& u : s.utilization_by_dimension) {
        if (u.resource != "cpu") continue;
        ++cpu_rows;
        EXPECT_EQ(u.count, 14u) << u.node << " " << u.dimension;  // 2 cores x 7 samples
        if (u.dimension == "I/OWaitPercentage") {
            EXPECT_EQ(u.min, 0.0);
            EXPECT_EQ(u.max, 1.5);
        } else {
            EXPECT_EQ(u.dimension, "CPUUtilization");
            EXPECT_EQ(u.min, 10.0);
            EXPECT_EQ(u.max, 56.25);
        }
    }
    EXPECT_EQ(cpu_rows, 4);  // 2 nodes x 2 dimensions
    for (const auto& u : s.utilization) {
        if (u.resource == "cpu") {
            EXPECT_EQ(u.count, 28u) << "smdebug's cpu row mixes both dimensions";
        }
    }
}

TEST(UtilizationCli, PrintsSmdebugsCsvAndRefusesWhatItCannotAnswer) {
    const auto csv = ringprof::testing::run_ringprof("utilization '" + kAnswer + "/input' --format csv");
    EXPECT_EQ(csv.code, 0) << csv.err;
    EXPECT_EQ(csv.out, read_text(kAnswer + "/smdebug_utilization.csv"));
    const auto usage =
        ringprof::testing::run_ringprof("utilization '" + kAnswer + "/input' --device-usage --format csv");
    EXPECT_EQ(usage.out, read_text(kAnswer + "/smdebug_device_usage.csv"));
    const auto json = ringprof::testing::run_ringprof("utilization '" + kAnswer + "/input' --format json");
    EXPECT_EQ(json.code, 0);
    EXPECT_NE(json.out.find("\"Resource\": \"gpu\", \"nodeID\": \"algo-2\", \"utilization_mean\": 65.16035714285714"),
              std::string::npos)
        << json.out;
    ringprof::testing::TempDir empty;
    const auto none = ringprof::testing::run_ringprof("utilization '" + empty.str() + "'");
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("no system-metrics files"), std::string::npos) << none.err;
    EXPECT_EQ(ringprof::testing::run_ringprof("utilization '" + empty.str() + "' --by phase").code, 1);
    EXPECT_EQ(ringprof::testing::run_ringprof("utilization '" + empty.str() + "' --by week").code, 2);
}

}  // namespace
