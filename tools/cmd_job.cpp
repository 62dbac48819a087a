// ringprof job: smdebug's job statistics (get_job_statistics) of a folder with system metrics and
// framework timelines. The work is in the library; this only parses arguments and reports.
#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "path_command_line.hpp"
#include "ringprof/system_statistics.hpp"
#include "trace_range_options.hpp"

namespace ringprof::cli {
namespace {

constexpr const char* kName = "job";
constexpr const char* kUsageLine = "usage: ringprof job PATH [--format table|csv|json]";
constexpr const char* kHelp =
    "usage: ringprof job PATH [--format table|csv|json]\n"
    "\n"
    "The job's statistics, as SageMaker Debugger's PandasFrameAnalysis.get_job_statistics computes\n"
    "them from the system metrics under PATH/system/ and the framework timelines under PATH: the\n"
    "first and last sample and the job's duration, the training loop from step 0 (Step:ModeKeys.TRAIN\n"
    "or GLOBAL) to the last framework event, initialization (step 0's start, counted from the first\n"
    "system file's minute, as smdebug counts it) and finalization, in microseconds and as shares of\n"
    "the job's duration.\n"
    "\n"
    "  --format F  table (default), csv (one row under smdebug's keys), json\n"
    "\n"
    "Exit status: 0 everything read, 3 answered but bad lines were left out (listed on stderr),\n"
    "1 nothing could be answered, 2 bad arguments.\n";

const Option kOptions[] = {
    kFormatOption,
    {"--help", "-h", kNoValue},
};

int run(int argc, char** argv) {
    std::string path;
    StatsFormat format = StatsFormat::table;
    if (const auto done = read_path_command_line(argc, argv, kOptions, kName, kHelp, path,
                                                 [&](const Arguments& a) { format = chosen(a, kTableCsvOrJson); }))
        return *done;
    JobStatistics j;
    if (const auto failed = answer_read_failure(kName, kUsageLine, path, "reading", [&] { j = analyze_job(path); }))
        return *failed;
    report_inputs(kName, {}, j.notes);
    if (!write_stdout(kName, render_job(j, format))) return kExitFailed;
    return j.notes.empty() ? kExitOk : kExitPartial;
}

const Command command{kName, "the job's span, initialization, training loop and finalization (smdebug)", kUsageLine,
                      &run};

}  // namespace
}  // namespace ringprof::cli
