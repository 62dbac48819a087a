// ringprof utilization: smdebug's utilization statistics of the system metrics under PATH/system/
// (get_utilization_stats, get_device_usage_stats). The work is in the library; this only parses
// arguments and reports.
#include <fmt/format.h>

#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "trace_range_options.hpp"
#include "ringprof/system_statistics.hpp"

namespace ringprof::cli {
namespace {

constexpr const char* kName = "utilization";
constexpr const char* kUsageLine =
    "usage: ringprof utilization PATH [--by node|dimension|phase] [--device-usage] [--format table|csv|json]";
constexpr const char* kHelp =
    "usage: ringprof utilization PATH [--by node|dimension|phase] [--device-usage] [--format table|csv|json]\n"
    "\n"
    "Utilization statistics of the system metrics under PATH/system/ (ringprof's sampler or\n"
    "SageMaker's files), as SageMaker Debugger's PandasFrameAnalysis computes them, to the last digit.\n"
    "\n"
    "  --by G          node (default): get_utilization_stats(), per resource (cpu, gpu, memory, i/o,\n"
    "                  network) and node the mean, min, max, p50, p95, p99 of every value whose\n"
    "                  type names the resource (smdebug's cpu mixes CPUUtilization and I/O wait);\n"
    "                  dimension: the same split by dimension as well;\n"
    "                  phase: get_utilization_stats(by=TRAINING_PHASE), per resource, training phase\n"
    "                  (Step:ModeKeys.* of the framework timelines under PATH, and the times before,\n"
    "                  between and after them) and node\n"
    "  --device-usage  get_device_usage_stats(): per cpu/gpu type and node, how many values fall in\n"
    "                  90..100, 10..90 and 0..10\n"
    "  --format F      table (default), csv (smdebug's DataFrame columns), json\n"
    "\n"
    "Exit status: 0 everything read, 3 answered but bad lines were left out (listed on stderr),\n"
    "1 nothing could be read, 2 bad arguments.\n";

const Option kOptions[] = {
    {"--by", "", kTakesValue},
    {"--format", "", kTakesValue},
    {"--device-usage", "", kNoValue},
    {"--help", "-h", kNoValue},
};

int usage_error(const std::string& message) { return cli::usage_error(kName, kUsageLine, message); }

int run(int argc, char** argv) {
    std::string path;
    bool by_dimension = false, by_phase = false, device_usage = false;
    StatsFormat format = StatsFormat::table;
    for (Arguments args(argc, argv, kOptions); args.next();) {
        const std::string& v = args.value();
        if (args.is("--help")) {
            return write_stdout(kName, kHelp) ? kExitOk : kExitFailed;
        } else if (args.is("--by")) {
            by_dimension = v == "dimension";
            by_phase = v == "phase";
            if (v != "node" && !by_dimension && !by_phase)
                return usage_error(fmt::format("--by must be node, dimension or phase (got '{}')", v));
        } else if (args.is("--device-usage")) {
            device_usage = true;
        } else if (args.is("--format")) {
            if (v == "table")
                format = StatsFormat::table;
            else if (v == "csv")
                format = StatsFormat::csv;
            else if (v == "json")
                format = StatsFormat::json;
            else
                return usage_error(fmt::format("--format must be table, csv or json (got '{}')", v));
        } else if (path.empty()) {
            path = args.operand();
        } else {
            return usage_error(fmt::format("more than one PATH given ('{}' and '{}')", path, args.operand()));
        }
    }
    if (path.empty()) return usage_error("PATH is missing");
    if (device_usage && (by_dimension || by_phase))
        return usage_error("--device-usage and --by dimension or phase do not go together");

    SystemStatistics s;
    if (const auto failed =
            answer_read_failure(kName, kUsageLine, path, "reading", [&] { s = analyze_system_metrics(path, by_phase); })) {
        return *failed;
    }
    report_inputs(kName, {}, s.notes);
    const std::string text = device_usage ? render_device_usage(s, format)
                             : by_phase   ? render_utilization_by_phase(s, format)
                                          : render_utilization(s, format, by_dimension);
    if (!write_stdout(kName, text)) return kExitFailed;
    return s.notes.empty() ? kExitOk : kExitPartial;
}

const Command command{kName, "CPU, GPU, memory, disk and network utilization statistics (smdebug)", kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
