// ringprof rules: SageMaker Debugger's profiler rules (LowGPUUtilization, CPUBottleneck,
// LoadBalancing, StepOutlier) with its defaults, as a report over a folder. The work is in the
// library; this only parses arguments and reports.
#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "path_command_line.hpp"
#include "ringprof/system_rules.hpp"
#include "trace_range_options.hpp"

namespace ringprof::cli {
namespace {

constexpr const char* kName = "rules";
constexpr const char* kUsageLine = "usage: ringprof rules PATH [--format table|json]";
constexpr const char* kHelp =
    "usage: ringprof rules PATH [--format table|json]\n"
    "\n"
    "SageMaker Debugger's profiler rules, with its defaults, over the system metrics under\n"
    "PATH/system/ and the steps of the framework timelines under PATH:\n"
    "  LowGPUUtilization  a GPU's p95 < 70 % over its last 500 samples, or p95 > 70 % with p5 < 10 %\n"
    "                     (GPUs with more than 1000 samples)\n"
    "  CPUBottleneck      a GPU below 10 % and a core above 90 % in more than 50 % of the snapshots\n"
    "                     (more than 1000 snapshots)\n"
    "  LoadBalancing      two GPUs of a node whose utilization histograms are more than 0.2 apart\n"
    "                     (Jensen-Shannon distance; more than 1000 samples each)\n"
    "  StepOutlier        more than 10 steps longer than mean + 3 standard deviations, per node and\n"
    "                     phase (more than 100 steps)\n"
    "Each finding names the node, the device, the time range and the steps in it.\n"
    "\n"
    "  --format F  table (default), json\n"
    "\n"
    "Exit status: 0 no rule triggered, 4 a rule triggered, 3 answered but bad lines were left out\n"
    "(listed on stderr), 1 nothing could be read, 2 bad arguments.\n";

constexpr int kExitTriggered = 4;

const Option kOptions[] = {
    kFormatOption,
    {"--help", "-h", kNoValue},
};

int run(int argc, char** argv) {
    std::string path;
    StatsFormat format = StatsFormat::table;
    if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path,
                                                 [&](const Arguments& a) { format = chosen(a, kTableOrJson); }))
        return *done;
    RulesReport r;
    if (const auto failed = answer_read_failure(kName, kUsageLine, path, "reading", [&] { r = evaluate_rules(path); }))
        return *failed;
    report_inputs(kName, {}, r.notes);
    if (!write_stdout(kName, render_rules(r, format))) return kExitFailed;
    if (!r.notes.empty()) return kExitPartial;
    for (const RuleResult& rule : r.rules)
        if (rule.triggered) return kExitTriggered;
    return kExitOk;
}

const Command command{kName, "smdebug's profiler rules: low GPU use, CPU bottleneck, load balancing, step outliers",
                      kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
