// ringprof merge: one Chrome/Perfetto timeline from the trace files of many processes and hosts
// (the smdebug MergedTimeline). The work is in the library; this only parses arguments and reports.
#include <fmt/format.h>

#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "path_command_line.hpp"
#include "ringprof/merged_timeline.hpp"
#include "trace_range_options.hpp"

namespace ringprof::cli {
namespace {

constexpr const char* kName = "merge";
constexpr const char* kUsageLine =
    "usage: ringprof merge PATH [--suffix S ...] [--start A --end B] [--unit time|step] [-o DIR] "
    "[--no-system-metrics]";
constexpr const char* kHelp =
    "usage: ringprof merge PATH [--suffix S ...] [--start A --end B] [--unit time|step] [-o DIR]\n"
    "                      [--no-system-metrics]\n"
    "\n"
    "Merges the trace files under PATH/framework/ into one Chrome/Perfetto timeline,\n"
    "<end>_<node>_merged_timeline.json, as SageMaker Debugger's MergedTimeline does, with the\n"
    "system metrics under PATH/system/ as its default filter adds them: a counter per metric and\n"
    "a sys_metrics_bottlenecks marker where a GPU is below 85 % (docs/system_metrics.md).\n"
    "\n"
    "  --suffix S     only files whose path ends with S (repeatable; default: pythontimeline.json,\n"
    "                 model_timeline.json, trace.json.gz, horovod_timeline.json,\n"
    "                 smdataparallel_timeline.json)\n"
    "  --start A      with --end: keep events overlapping [A, B]; without both, merge everything\n"
    "  --end B\n"
    "  --unit U       time (default): A and B are microseconds since the Unix epoch;\n"
    "                 step: from the start of step A to just before the start of step B\n"
    "  -o, --output DIR  folder for the merged file (default: PATH)\n"
    "  --no-system-metrics  leave PATH/system/ out\n"
    "\n"
    "Exit status: 0 all inputs merged, 3 merged but some inputs were skipped (listed on stderr),\n"
    "1 nothing could be merged, 2 bad arguments.\n";

const Option kOptions[] = {
    kSuffixOption, kStartOption, kEndOption, kUnitOption, {"--output", "-o", kTakesValue}, {"--help", "-h", kNoValue},
    {"--no-system-metrics", "", kNoValue},
};

int usage_error(const std::string& message) { return cli::usage_error(kName, kUsageLine, message); }

int run(int argc, char** argv) {
    std::string path, out_dir, error;
    TraceRangeOptions range;
    bool system_metrics = true;
    if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path, [&](const Arguments& a) {
            if (range.take(a, error)) {
                if (!error.empty()) throw UsageError(error);
            } else if (a.is("--no-system-metrics")) {
                system_metrics = false;
            } else {  // --output
                if (a.value().empty()) throw UsageError(a.written() + " needs a folder");
                out_dir = a.value();
            }
        }))
        return *done;
    if (error = range.check(); !error.empty()) return usage_error(error);

    MergedTimeline merger(path, range.suffixes, out_dir);
    merger.set_system_metrics(system_metrics);
    MergeResult r;
    if (const auto failed = answer_read_failure(kName, kUsageLine, path, "merging; no merged file written", [&] {
            r = range.start ? merger.merge_timeline(*range.start, *range.end, range.unit) : merger.merge_all();
        })) {
        return *failed;
    }
    report_inputs(kName, r.skipped, r.notes);
    if (r.output_path.empty()) {
        report(kName, fmt::format("{}: every input was skipped (listed above); no merged file written", path));
        return kExitFailed;
    }
    if (!write_stdout(kName, r.output_path + "\n")) return kExitFailed;
    report(kName, fmt::format("{} events from {} files ({} skipped)", r.events_written, r.files_merged, r.skipped.size()) +
                      (r.system_events ? fmt::format(", {} system-metrics events", r.system_events) : ""));
    if (r.complete()) return kExitOk;
    return r.files_merged > 0 || r.skipped.empty() ? kExitPartial : kExitFailed;
}

const Command command{kName, "merge timelines of many processes and hosts (smdebug MergedTimeline)", kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
