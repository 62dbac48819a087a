// ringprof steps: how long training steps take per group across processes and hosts (smdebug's
// step statistics), and which node holds each step back. The work is in the library; this only
// parses arguments and reports.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "trace_range_options.hpp"
#include "ringprof/step_statistics.hpp"

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

enum class Format { table, csv, json };

const Option kOptions[] = {
    {"--by", "", kTakesValue},
    {"--format", "", kTakesValue},
    kSuffixOption,
    kStartOption,
    kEndOption,
    kUnitOption,
    {"--outlier-k", "", kTakesValue},
    {"--help", "-h", kNoValue},
};

int usage_error(const std::string& message) { return cli::usage_error(kName, kUsageLine, message); }

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
    Format format = Format::table;
    std::string error;
    TraceRangeOptions range;
    for (Arguments args(argc, argv, kOptions); args.next();) {
        const std::string& v = args.value();
        if (args.is("--help")) {
            return write_stdout(kName, kHelp) ? kExitOk : kExitFailed;
        } else if (range.take(args, error)) {
            if (!error.empty()) return usage_error(error);
        } else if (args.is("--by")) {
            const auto g = step_grouping_named(v);
            if (!g)
                return usage_error(
                    fmt::format("--by must be training_phase, process, framework_metric or node (got '{}')", v));
            by = *g;
        } else if (args.is("--format")) {
            if (v == "table")
                format = Format::table;
            else if (v == "csv")
                format = Format::csv;
            else if (v == "json")
                format = Format::json;
            else
                return usage_error(fmt::format("--format must be table, csv or json (got '{}')", v));
        } else if (args.is("--outlier-k")) {
            char* stop = nullptr;
            const double k = std::strtod(v.c_str(), &stop);
            if (v.empty() || *stop != '\0' || !std::isfinite(k) || k < 0)
                return usage_error(fmt::format("--outlier-k needs a number >= 0 (got '{}')", v));
            req.outlier_k = k;
        } else if (path.empty()) {
            path = args.operand();
        } else {
            return usage_error(fmt::format("more than one PATH given ('{}' and '{}')", path, args.operand()));
        }
    }
    if (path.empty()) return usage_error("PATH is missing");
    if (error = range.check(); !error.empty()) return usage_error(error);
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
    const std::string text = format == Format::csv    ? render_step_csv(a, by)
                             : format == Format::json ? render_step_json(a, by)
                                                      : render_step_table(a, by);
    if (!write_stdout(kName, text)) return kExitFailed;
    return a.complete() ? kExitOk : kExitPartial;
}

const Command command{kName, "step time statistics per phase, process, metric or node, and the stragglers (smdebug)",
                      kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
