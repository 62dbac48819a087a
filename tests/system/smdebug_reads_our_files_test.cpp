// A session's own system files, read by smdebug's own readers (SystemMetricsReader, PandasFrame,
// PandasFrameAnalysis) from a checkout of its source named by SMDEBUG_SRC: every row is read, and
// its utilization statistics equal ringprof's. Without SMDEBUG_SRC (or Python's pandas) the test is
// skipped and says why; the committed answers of tests/merge/smdebug_system_answer keep the numbers
// checked in CI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "ringprof/config.hpp"
#include "ringprof/session.hpp"
#include "ringprof/system_statistics.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

constexpr const char* kSmdebugReader = R"(import os, sys, types
sys.path.insert(0, os.environ["SMDEBUG_SRC"])
stub = types.ModuleType("pyinstrument"); stub.Profiler = object; sys.modules["pyinstrument"] = stub
from smdebug.profiler.system_metrics_reader import LocalSystemMetricsReader
from smdebug.profiler.analysis.utils.profiler_data_to_pandas import PandasFrame
from smdebug.profiler.analysis.utils.pandas_data_analysis import PandasFrameAnalysis
path, out = sys.argv[1:3]
events = LocalSystemMetricsReader(path).get_events(0, 10**17)
frame = PandasFrame(path, scan_interval=10**18)
system, framework = frame.get_profiler_data_by_time(0, 10**17)
PandasFrameAnalysis(system, framework).get_utilization_stats().to_csv(out, index=False)
print(len(events), len(system))
)";

// The command's stdout, or nullopt when it did not exit 0.
std::optional<std::string> output_of(const std::string& command) {
    FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) return std::nullopt;
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

TEST(SmdebugReadsOurFiles, EveryRowAndTheSameUtilizationStatistics) {
    const char* smdebug = std::getenv("SMDEBUG_SRC");
    if (smdebug == nullptr || *smdebug == '\0')
        GTEST_SKIP() << "SMDEBUG_SRC is not set: smdebug's own readers are not run (a checkout of "
                        "awslabs/sagemaker-debugger's source, and Python with pandas)";
    if (!output_of("/usr/bin/python3 -c 'import pandas, psutil, boto3' 2>/dev/null"))
        GTEST_SKIP() << "/usr/bin/python3 lacks pandas, psutil or boto3, which smdebug's readers import";
    ringprof::testing::TempDir dir;
    const std::string out = (dir.path() / "out").string();
    const auto run = ringprof::testing::run_bounded([&] {
        ringprof::Config c;
        c.output_dir = out;
        c.backends = {"timers"};
        c.system_interval_ms = 100;
        ringprof::Session session(c);
        // Until a few samples are written, however loaded the machine (the deadline ends it).
        for (;;) {
            std::size_t lines = 0;
            if (fs::exists(out + "/system"))
                for (const auto& e : fs::recursive_directory_iterator(out + "/system"))
                    if (e.is_regular_file()) {
                        std::ifstream in(e.path());
                        for (std::string l; std::getline(in, l);) ++lines;
                    }
            if (lines >= 20) return 0;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    ASSERT_EQ(run.exit_code, 0);
    const ringprof::SystemStatistics ours = ringprof::analyze_system_metrics(out);
    const std::string script = (dir.path() / "read_with_smdebug.py").string();
    std::ofstream(script) << kSmdebugReader;
    const std::string csv = (dir.path() / "smdebug_utilization.csv").string();
    const auto counts =
        output_of("PYTHONHASHSEED=0 /usr/bin/python3 '" + script + "' '" + out + "' '" + csv + "' 2>/dev/null");
    ASSERT_TRUE(counts) << "smdebug's readers failed on our files";
    // smdebug logs to stdout too: the counts are its last line.
    const std::string last = counts->substr(counts->rfind('\n', counts->size() - 2) + 1);
    EXPECT_EQ(last, std::to_string(ours.rows) + " " + std::to_string(ours.rows) + "\n")
        << "smdebug's reader events and DataFrame rows";
    EXPECT_EQ(ringprof::testing::read_text(csv), ringprof::render_utilization(ours, ringprof::StatsFormat::csv));
}

}  // namespace
