// ringprof rules: smdebug's profiler rules with its defaults, each on a folder built to trigger it
// and on one built not to (just inside each threshold), the findings read back.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "ringprof/system_rules.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace {

namespace fs = std::filesystem;
constexpr double kRulesBase = 1594662600;  // the minute of the system file

struct RuleSample {
    double gpu0 = 95, gpu1 = 95, cpu0 = 50;
};

// One system file of `n` samples every 0.5 s on algo-1; sample i as `of(i)` makes it.
void write_rule_samples(const fs::path& dir, int n, const std::function<RuleSample(int)>& of) {
    const fs::path folder = dir / "system" / "incremental" / "2020071317";
    fs::create_directories(folder);
    std::ofstream out(folder / "1594662600.algo-1.json");
    for (int i = 0; i < n; ++i) {
        const RuleSample s = of(i);
        char ts[32];
        std::snprintf(ts, sizeof ts, "%.1f", kRulesBase + i * 0.5);
        const auto row = [&](const char* type, const char* name, const char* dim, double v) {
            out << "{\"Type\":\"" << type << "\",\"Name\":\"" << name << "\",\"Dimension\":\"" << dim
                << "\",\"Value\":" << v << ",\"NodeId\":\"algo-1\",\"Timestamp\":" << ts << "}\n";
        };
        row("gpu", "gpu0", "GPUUtilization", s.gpu0);
        row("gpu", "gpu1", "GPUUtilization", s.gpu1);
        row("cpu", "cpu0", "CPUUtilization", s.cpu0);
    }
}

// A pythontimeline of `n` TRAIN steps, step i from base + i s, lasting `dur_s(i)` seconds.
void write_rule_steps(const fs::path& dir, int n, const std::function<double(int)>& dur_s) {
    const fs::path folder = dir / "framework" / "pevents" / "2020071317";
    fs::create_directories(folder);
    const long long base_us = static_cast<long long>(kRulesBase) * 1000000;
    std::ofstream out(folder / (std::to_string(base_us + n * 1000000LL) + "_1-algo-1_pythontimeline.json"));
    out << "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": "
        << base_us << "}},\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": "
        << "\"Step:ModeKeys.TRAIN\"}}";
    for (int i = 0; i < n; ++i)
        out << ",\n{\"name\": \"Step:ModeKeys.TRAIN\", \"pid\": 1, \"ph\": \"X\", \"ts\": " << i * 1000000LL
            << ", \"dur\": " << static_cast<long long>(dur_s(i) * 1e6) << ", \"args\": {\"step_num\": \"" << i
            << "\"}}";
    out << "\n]";
}

ringprof::RuleResult rule_named(const ringprof::RulesReport& r, const std::string& name) {
    for (const auto& rule : r.rules)
        if (rule.rule == name) return rule;
    throw std::runtime_error("no rule " + name);
}

TEST(SystemRules, LowGpuUtilizationNamesTheUnderUsedAndTheFluctuatingGpuOverTheLast500Samples) {
    ringprof::testing::TempDir dir;
    // gpu0 at 60 % at the end (p95 < 70); gpu1 alternating 100 / 0 (p95 > 70, p5 < 10).
    write_rule_samples(dir.path(), 1100, [](int i) {
        return RuleSample{i < 600 ? 95.0 : 60.0, i % 2 ? 100.0 : 0.0, 50};
    });
    write_rule_steps(dir.path(), 550, [](int) { return 0.9; });
    const auto r = ringprof::evaluate_rules(dir.str());
    const auto& low = rule_named(r, "LowGPUUtilization");
    ASSERT_TRUE(low.triggered) << low.summary;
    ASSERT_EQ(low.findings.size(), 2u);
    EXPECT_EQ(low.findings[0].node, "algo-1");
    EXPECT_EQ(low.findings[0].device, "gpu0");
    EXPECT_NE(low.findings[0].what.find("under-used"), std::string::npos) << low.findings[0].what;
    EXPECT_DOUBLE_EQ(low.findings[0].start_s, kRulesBase + 600 * 0.5);  // the last 500 samples
    EXPECT_DOUBLE_EQ(low.findings[0].end_s, kRulesBase + 1099 * 0.5);
    ASSERT_TRUE(low.findings[0].first_step.has_value());
    EXPECT_EQ(*low.findings[0].first_step, 300);  // step 299 ends at 299.9 s, before the window
    EXPECT_EQ(*low.findings[0].last_step, 549);
    EXPECT_EQ(low.findings[1].device, "gpu1");
    EXPECT_NE(low.findings[1].what.find("fluctuating"), std::string::npos) << low.findings[1].what;
}

TEST(SystemRules, LowGpuUtilizationWaitsForMoreThan1000SamplesAndSparesAWellUsedGpu) {
    ringprof::testing::TempDir few, busy;
    write_rule_samples(few.path(), 1000, [](int) { return RuleSample{5, 5, 50}; });
    EXPECT_FALSE(rule_named(ringprof::evaluate_rules(few.str()), "LowGPUUtilization").triggered);
    write_rule_samples(busy.path(), 1100, [](int i) { return RuleSample{i % 20 ? 90.0 : 10.0, 71, 50}; });
    const auto& low = rule_named(ringprof::evaluate_rules(busy.str()), "LowGPUUtilization");
    EXPECT_FALSE(low.triggered) << low.summary;
    EXPECT_NE(low.summary.find("0 of 2 GPUs"), std::string::npos) << low.summary;
}

TEST(SystemRules, CpuBottleneckTriggersAboveHalfTheSnapshotsOnly) {
    ringprof::testing::TempDir over, under;
    // 56 % and 45 % of 1100 snapshots with gpu0 below 10 % and cpu0 above 90 %.
    write_rule_samples(over.path(), 1100, [](int i) {
        return i % 25 < 14 ? RuleSample{5, 95, 95} : RuleSample{95, 95, 50};
    });
    write_rule_samples(under.path(), 1100, [](int i) {
        return i % 20 < 9 ? RuleSample{5, 95, 95} : RuleSample{95, 95, 50};
    });
    const auto& hit = rule_named(ringprof::evaluate_rules(over.str()), "CPUBottleneck");
    ASSERT_TRUE(hit.triggered) << hit.summary;
    ASSERT_EQ(hit.findings.size(), 1u);
    EXPECT_EQ(hit.findings[0].node, "algo-1");
    EXPECT_EQ(hit.findings[0].device, "gpu0");
    EXPECT_DOUBLE_EQ(hit.findings[0].start_s, kRulesBase);
    EXPECT_NE(hit.summary.find("616 of 1100 snapshots"), std::string::npos) << hit.summary;
    const auto& miss = rule_named(ringprof::evaluate_rules(under.str()), "CPUBottleneck");
    EXPECT_FALSE(miss.triggered) << miss.summary;
    EXPECT_NE(miss.summary.find("495 of 1100 snapshots"), std::string::npos) << miss.summary;
}

TEST(SystemRules, LoadBalancingComparesTheGpusHistogramsOfANode) {
    ringprof::testing::TempDir apart, alike;
    write_rule_samples(apart.path(), 1100, [](int i) { return RuleSample{80.0 + i % 10, 20.0 + i % 10, 50}; });
    write_rule_samples(alike.path(), 1100, [](int i) { return RuleSample{80.0 + i % 10, 80.0 + (i + 3) % 10, 50}; });
    const auto& hit = rule_named(ringprof::evaluate_rules(apart.str()), "LoadBalancing");
    ASSERT_TRUE(hit.triggered) << hit.summary;
    ASSERT_EQ(hit.findings.size(), 1u);
    EXPECT_EQ(hit.findings[0].device, "gpu0 gpu1");
    // Disjoint histograms: the Jensen-Shannon distance is sqrt(ln 2).
    EXPECT_NE(hit.findings[0].what.find("0.8325546111576977"), std::string::npos) << hit.findings[0].what;
    EXPECT_FALSE(rule_named(ringprof::evaluate_rules(alike.str()), "LoadBalancing").triggered);
}

TEST(SystemRules, StepOutlierNeedsMoreThanTenStepsBeyondMeanPlusThreeSigma) {
    ringprof::testing::TempDir eleven, ten;
    write_rule_samples(eleven.path(), 10, [](int) { return RuleSample{}; });
    write_rule_samples(ten.path(), 10, [](int) { return RuleSample{}; });
    write_rule_steps(eleven.path(), 130, [](int i) { return i % 12 == 5 && i < 130 ? 1.0 : 0.1; });  // 11 long
    write_rule_steps(ten.path(), 130, [](int i) { return i % 13 == 5 ? 1.0 : 0.1; });                // 10 long
    const auto& hit = rule_named(ringprof::evaluate_rules(eleven.str()), "StepOutlier");
    ASSERT_TRUE(hit.triggered) << hit.summary;
    ASSERT_EQ(hit.findings.size(), 1u);
    EXPECT_EQ(hit.findings[0].device, "Step:ModeKeys.TRAIN");
    EXPECT_EQ(hit.findings[0].steps.size(), 11u);
    EXPECT_EQ(hit.findings[0].steps.front(), 5);
    EXPECT_EQ(*hit.findings[0].last_step, 125);
    EXPECT_DOUBLE_EQ(hit.findings[0].start_s, kRulesBase + 5);
    const auto& miss = rule_named(ringprof::evaluate_rules(ten.str()), "StepOutlier");
    EXPECT_FALSE(miss.triggered) << miss.summary;
}

TEST(RulesCli, ReportsAsJsonAndSaysATriggeredRuleInItsExitStatus) {
    ringprof::testing::TempDir dir;
    write_rule_samples(dir.path(), 1100, [](int) { return RuleSample{50, 50, 50}; });
    const auto json = ringprof::testing::run_ringprof("rules '" + dir.str() + "' --format json");
    EXPECT_EQ(json.code, 4) << json.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
    int triggered = 0;
    for (simdjson::dom::element rule : doc["rules"].get_array()) {
        if (!bool(rule["triggered"])) continue;
        ++triggered;
        EXPECT_EQ(std::string_view(rule["rule"]), "LowGPUUtilization");
        EXPECT_EQ(rule["findings"].get_array().size(), 2u);
    }
    EXPECT_EQ(triggered, 1);
    ringprof::testing::TempDir fine;
    write_rule_samples(fine.path(), 20, [](int) { return RuleSample{}; });
    const auto ok = ringprof::testing::run_ringprof("rules '" + fine.str() + "'");
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_NE(ok.out.find("StepOutlier: ok"), std::string::npos) << ok.out;
    EXPECT_EQ(ringprof::testing::run_ringprof("rules '" + fine.str() + "' --format csv").code, 2);
}

}  // namespace
