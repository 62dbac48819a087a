// ringprof steps: how long training steps take per group across processes and hosts (smdebug's
// step statistics), and which node holds each step back. The work is in the library; this only
// parses arguments and reports.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "path_command_line.hpp"
#include "ringprof/step_statistics.hpp"
#include "trace_range_options.hpp"

namespace ringprof::cli {
namespace {

constexpr const char* kName = "steps";
constexpr const char* kUsageLine =
    "usage: ringprof steps PATH [--by training_phase|process|framework_metric|node] [--format table|csv|json] "
    "[--start A --end B] [--unit time|step] [--suffix S ...] [--outlier-k K]";
constexpr const char* kHelp =
    "usage: ringprof steps PATH [--by training_phase|process|framework_metric|node] [--format table|csv|json]\n"
    "                      [--start A --end B] [--unit time|step] [--suffix S ...] [--outlier-k K]\n"
    "\n"
    "Step statistics of the trace files ringprof merge reads under PATH, as SageMaker Debugger's\n"
    "get_step_statistics computes them: each event's step (args.step_num, else the step whose span\n"
    "contains it), per step and group the span from the earliest start to the latest end, then per\n"
    "group the mean, min, max, p50, p95 and p99 of those spans in microseconds.\n"
    "\n"
    "  --by G         training_phase (default; the Step:ModeKeys.* events), process (process name),\n"
    "                 framework_metric (event name), node (host and process that wrote the event)\n"
    "  --format F     table (default: the groups, then per step the slowest node and the outlier\n"
    "                 steps), csv (smdebug's columns), json (everything)\n"
    "  --start A      with --end: only events overlapping [A, B], as in ringprof merge\n"
    "  --end B\n"
    "  --unit U       time (default): A and B are microseconds since the Unix epoch;\n"
    "                 step: from the start of step A to just before the start of step B\n"
    "  --suffix S     only files whose path ends with S (repeatable), as in ringprof merge\n"
    "  --outlier-k K  a step is an outlier when its time > median + K * MAD of all step times\n"
    "                 (MAD: median absolute deviation from the median; default 3)\n"
    "\n"
    "Events in no step are left out and counted on stderr. Exit status: 0 everything read,\n"
    "3 answered but some inputs were skipped or malformed events left out (listed on stderr),\n"
    "1 nothing could be read, 2 bad arguments.\n";

const Option kOptions[] = {
    {"--by", "", kTakesValue},
    kFormatOption,
    kSuffixOption,
    kStartOption,
    kEndOption,
    kUnitOption,
    {"--outlier-k", "", kTakesValue},
    {"--help", "-h", kNoValue},
};

// --by's names, as the library spells them, for the message that lists them.
std::vector<std::string_view> grouping_names() {
    std::vector<std::string_view> names;
    for (const StepGrouping g :
         {StepGrouping::training_phase, StepGrouping::process, StepGrouping::framework_metric, StepGrouping::node})
        names.push_back(step_grouping_name(g));
    return names;
}

// "N events in no step left out: a, b, c (and M more names)": one line however many.
std::string outside_line(const StepAnalysis& a) {
    constexpr std::size_t kNamesShown = 8;
    std::string names;
    for (std::size_t i = 0; i < a.names_outside_steps.size() && i < kNamesShown; ++i)
        names += (i ? ", " : "") + a.names_outside_steps[i];
    if (a.names_outside_steps.size() > kNamesShown)
        names += fmt::format(" (and {} more names)", a.names_outside_steps.size() - kNamesShown);
    return fmt::format("{} event(s) in no step (no step_num, and no step's span contains them) left out: {}",
                       a.events_outside_steps, names);
}

int run(int argc, char** argv) {
    std::string path;
    StepRequest req;
    StepGrouping by = StepGrouping::training_phase;
    StatsFormat format = StatsFormat::table;
    std::string error;
    TraceRangeOptions range;
    if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path, [&](const Arguments& a) {
            const std::string& v = a.value();
            if (range.take(a, error)) {
                if (!error.empty()) throw UsageError(error);
            } else if (a.is("--by")) {
                const auto g = step_grouping_named(v);
                if (!g) throw UsageError(not_one_of(a.written(), grouping_names(), v));
                by = *g;
            } else if (a.is("--outlier-k")) {
                char* stop = nullptr;
                const double k = std::strtod(v.c_str(), &stop);
                if (v.empty() || *stop != '\0' || !std::isfinite(k) || k < 0)
                    throw UsageError(fmt::format("--outlier-k needs a number >= 0 (got '{}')", v));
                req.outlier_k = k;
            } else {
                format = chosen(a, kTableCsvOrJson);
            }
        }))
        return *done;
    if (error = range.check(); !error.empty()) return usage_error(kName, kUsageLine, error);
    req.suffixes = range.suffixes;
    req.unit = range.unit;
    if (range.start) req.range.emplace(*range.start, *range.end);

    StepAnalysis a;
    if (const auto failed =
            answer_read_failure(kName, kUsageLine, path, "reading", [&] { a = analyze_steps(path, req); })) {
        return *failed;
    }
    report_inputs(kName, a.skipped, a.notes);
    if (a.files_read == 0 && !a.skipped.empty()) {
        report(kName, fmt::format("{}: every input was skipped (listed above); no statistics", path));
        return kExitFailed;
    }
    if (a.events_outside_steps > 0) report(kName, outside_line(a));
    const std::string text = format == StatsFormat::csv    ? render_step_csv(a, by)
                             : format == StatsFormat::json ? render_step_json(a, by)
                                                           : render_step_table(a, by);
    if (!write_stdout(kName, text)) return kExitFailed;
    return a.complete() ? kExitOk : kExitPartial;
}

const Command command{kName, "step time statistics per phase, process, metric or node, and the stragglers (smdebug)",
                      kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
