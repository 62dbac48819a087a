// ringprof utilization: smdebug's utilization statistics of the system metrics under PATH/system/
// (get_utilization_stats, get_device_usage_stats). The work is in the library; this only parses
// arguments and reports.
#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "path_command_line.hpp"
#include "ringprof/system_statistics.hpp"
#include "trace_range_options.hpp"

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

enum class Grouping { node, dimension, phase };
constexpr Choice<Grouping> kGroupings[] = {
    {"node", Grouping::node}, {"dimension", Grouping::dimension}, {"phase", Grouping::phase}};

const Option kOptions[] = {
    {"--by", "", kTakesValue},
    kFormatOption,
    {"--device-usage", "", kNoValue},
    {"--help", "-h", kNoValue},
};

int run(int argc, char** argv) {
    std::string path;
    Grouping by = Grouping::node;
    bool device_usage = false;
    StatsFormat format = StatsFormat::table;
    if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path, [&](const Arguments& a) {
            if (a.is("--by"))
                by = chosen(a, kGroupings);
            else if (a.is("--device-usage"))
                device_usage = true;
            else
                format = chosen(a, kTableCsvOrJson);
        }))
        return *done;
    const bool by_dimension = by == Grouping::dimension, by_phase = by == Grouping::phase;
    if (device_usage && (by_dimension || by_phase))
        return usage_error(kName, kUsageLine, "--device-usage and --by dimension or phase do not go together");

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
