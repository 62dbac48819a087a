// SageMaker Debugger's profiler rules (which ran only inside SageMaker) as a report over any
// folder with system metrics and, for the steps, framework timelines. Each rule keeps smdebug's
// definition and defaults (docs/system_metrics.md names where ringprof's report differs: it looks
// at the whole folder once, and reports every finding rather than stopping at the first):
// - LowGPUUtilization: per node and GPU with more than 1000 samples, over the last 500: p95 < 70
//   (under-used), or p95 > 70 with p5 < 10 (fluctuating);
// - CPUBottleneck: of more than 1000 snapshots (samples within 20 ms of each other), more than
//   50 % have a GPU below 10 % and a core above 90 %;
// - LoadBalancing: per node, two GPUs (more than 1000 samples each) whose utilization histograms
//   (2 % bins from 0 to 98) are further apart than 0.2 (Jensen-Shannon distance);
// - StepOutlier: per node and phase with more than 100 steps, more than 10 steps longer than the
//   mean + 3 standard deviations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringprof/system_statistics.hpp"

namespace ringprof {

struct RuleFinding {
    std::string node;
    std::string device;              // gpu0, "gpu0 gpu1" (a pair), a phase for StepOutlier; may be empty
    double start_s = 0, end_s = 0;   // the time range it covers, epoch seconds
    std::optional<std::int64_t> first_step, last_step;  // the steps in that range (or the outlier steps)
    std::vector<std::int64_t> steps;                    // StepOutlier: the outlier steps
    std::string what;                                   // the numbers behind it, in words
};

struct RuleResult {
    std::string rule;        // LowGPUUtilization, CPUBottleneck, LoadBalancing, StepOutlier
    std::string parameters;  // smdebug's defaults, as name=value
    bool triggered = false;
    std::string summary;  // why it did or did not trigger, or why it could not be checked
    std::vector<RuleFinding> findings;
};

struct RulesReport {
    std::vector<RuleResult> rules;
    std::vector<std::string> notes;
};

// Throws std::runtime_error when <path>/system holds no system-metrics file. Without framework
// timelines, findings name no steps and StepOutlier says it has nothing to check.
RulesReport evaluate_rules(const std::string& path);

// table or json (csv is refused by the tool: findings are not one table).
std::string render_rules(const RulesReport& r, StatsFormat format);

}  // namespace ringprof
