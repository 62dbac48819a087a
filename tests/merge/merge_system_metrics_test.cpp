// `ringprof merge` with system metrics (<path>/system/): smdebug's MergedTimeline answer on the
// fixture in tests/merge/smdebug_system_answer (made as make_input.py there says), its loop's
// quirks on rows made here with the answer worked out by hand, pandas' row order, bad lines.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "merge/numpy_argsort.hpp"
#include "merge/system_metric_events.hpp"
#include "merge/system_metric_rows.hpp"
#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"
#include "tool_run.hpp"

namespace {

using namespace merge_test;
namespace m = ringprof::detail;

const std::string kSystemFixture = std::string(RINGPROF_TEST_SOURCE_DIR) + "/merge/smdebug_system_answer";

std::string process_of(const std::vector<OutEvent>& all, std::int64_t pid) {
    for (const OutEvent& e : all)
        if (e.ph == "M" && e.name == "process_name" && e.pid == pid) return e.meta_name;
    return "(undeclared)";
}

TEST(MergeSystemMetrics, SameEventsAndMarkersInTheSameOrderAsSmdebugsOwnMerger) {
    TempDir out;
    ringprof::MergedTimeline merger(kSystemFixture + "/input", {}, out.path().string());
    const ringprof::MergeResult r = merger.merge_all();
    ASSERT_TRUE(r.complete()) << (r.notes.empty() ? "" : r.notes.front());
    EXPECT_TRUE(r.notes.empty()) << "the corrupt last line is skipped without a word";
    const std::vector<OutEvent> ours = read_output(r.output_path);
    const std::vector<OutEvent> theirs = read_output(kSystemFixture + "/smdebug_merged_timeline.json");
    std::size_t counters = 0, markers = 0;
    for (const OutEvent& e : theirs) {
        counters += e.ph == "C";
        markers += e.ph == "i";
    }
    ASSERT_EQ(counters, 91u);  // what smdebug wrote: the fixture is whole
    ASSERT_EQ(markers, 4u);
    EXPECT_EQ(r.system_events, counters + markers);
    EXPECT_EQ(r.events_written, 7u);
    ASSERT_EQ(ours.size(), theirs.size());
    for (std::size_t i = 0; i < ours.size(); ++i) {
        const OutEvent& a = ours[i];
        const OutEvent& b = theirs[i];
        SCOPED_TRACE("event #" + std::to_string(i) + " (" + b.ph + " " + b.name + ")");
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.ph, b.ph);
        EXPECT_EQ(a.ts, b.ts);
        EXPECT_EQ(a.dur, b.dur);
        EXPECT_EQ(a.args_json, b.args_json);
        EXPECT_EQ(a.pid, b.pid);
        EXPECT_EQ(process_of(ours, a.pid), process_of(theirs, b.pid));
        if (a.ph == "X" || a.name == "thread_name") {
            // smdebug's tids are Python string hashes: compared through the threads' names.
            EXPECT_EQ(thread_name_of(ours, a.pid, a.tid), thread_name_of(theirs, b.pid, b.tid));
        } else {
            EXPECT_EQ(a.tid, b.tid);
        }
    }
}

TEST(MergeSystemMetrics, AreLeftOutWhenSwitchedOffAndTheRestIsUnchanged) {
    TempDir on_dir, off_dir;
    ringprof::MergedTimeline on(kSystemFixture + "/input", {}, on_dir.path().string());
    ringprof::MergedTimeline off(kSystemFixture + "/input", {}, off_dir.path().string());
    off.set_system_metrics(false);
    const auto with = only_x(read_output(on.merge_all().output_path));
    const ringprof::MergeResult r = off.merge_all();
    EXPECT_EQ(r.system_events, 0u);
    const auto all = read_output(r.output_path);
    for (const OutEvent& e : all) EXPECT_TRUE(e.ph == "X" || e.ph == "M") << e.ph << " " << e.name;
    const auto without = only_x(all);
    ASSERT_EQ(without.size(), with.size());
    for (std::size_t i = 0; i < with.size(); ++i) EXPECT_EQ(without[i].ts, with[i].ts);
}

TEST(MergeSystemMetrics, TheCommandLeavesThemOutWithItsFlag) {
    TempDir out;
    const auto r = ringprof::testing::run_ringprof("merge '" + kSystemFixture + "/input' -o '" + out.str() +
                                                   "' --no-system-metrics");
    ASSERT_EQ(r.code, 0) << r.err;
    std::string path = r.out.substr(0, r.out.find('\n'));
    for (const OutEvent& e : read_output(path)) EXPECT_NE(e.ph, "C");
    const auto with =
        ringprof::testing::run_ringprof("merge '" + kSystemFixture + "/input' -o '" + out.str() + "/with'");
    ASSERT_EQ(with.code, 0) << with.err;
    EXPECT_NE(with.err.find("95 system-metrics events"), std::string::npos) << with.err;
}

m::SystemRow row(double ts_s, const char* name, const char* dimension, double value, const char* node = "algo-1") {
    m::SystemRow r;
    r.timestamp = ts_s;
    r.ts_us = static_cast<std::int64_t>(ts_s * 1000000.0);
    r.value = value;
    r.type = name[0] == 'g' ? "gpu" : "cpu";
    r.name = name;
    r.dimension = dimension;
    r.node = node;
    return r;
}

std::string describe(const std::vector<m::SystemTraceEvent>& events) {
    std::string out;
    for (const auto& e : events)
        out += (e.instant ? "i " : "C ") + std::to_string(e.ts_us) + " " + e.name + " " + e.args_json + "\n";
    return out;
}

TEST(SystemTraceEvents, AJobWithoutALowGpuSampleGetsNone) {
    const std::vector<m::SystemRow> cpu_only = {row(10.0, "cpu0", "CPUUtilization", 99),
                                                row(10.5, "cpu0", "CPUUtilization", 1)};
    EXPECT_TRUE(m::system_trace_events(cpu_only).empty());
    const std::vector<m::SystemRow> busy_gpu = {row(10.0, "cpu0", "CPUUtilization", 9),
                                                row(10.0, "gpu0", "GPUUtilization", 85)};
    EXPECT_TRUE(m::system_trace_events(busy_gpu).empty()) << "85 is not below 85";
}

TEST(SystemTraceEvents, StopAtTheFirstRowAfterTheLastLowGpuSample) {
    const std::vector<m::SystemRow> rows = {
        row(10.0, "cpu0", "CPUUtilization", 5),  row(10.0, "gpu0", "GPUUtilization", 40),
        row(10.02, "cpu1", "CPUUtilization", 6),  // 20 ms away: still the sample's
        row(10.5, "cpu0", "CPUUtilization", 7),   // the loop stops here: no counter for it or later
        row(10.5, "gpu0", "GPUUtilization", 99),
    };
    EXPECT_EQ(describe(m::system_trace_events(rows)),
              "C 10000000 \"cpu0_CPUUtilization_algo-1\" {\"value\": 5.0}\n"
              "C 10000000 \"gpu0_GPUUtilization_algo-1\" {\"value\": 40.0}\n"
              "C 10020000 \"cpu1_CPUUtilization_algo-1\" {\"value\": 6.0}\n"
              "i 10000000 \"sys_metrics_bottlenecks\" {\"cpu0_CPUUtilization_algo-1\": 5.0, "
              "\"gpu0_GPUUtilization_algo-1\": 40.0, \"cpu1_CPUUtilization_algo-1\": 6.0}\n");
}

TEST(SystemTraceEvents, KeepSmdebugsStaleSampleAndKeyQuirks) {
    // Two GPUs low at 10.0 (two entries of one time), then gpu0 low again at 10.5.
    const std::vector<m::SystemRow> rows = {
        row(10.0, "gpu0", "GPUUtilization", 10), row(10.0, "gpu1", "GPUUtilization", 20),
        row(10.5, "cpu0", "CPUUtilization", 1),  // past 10.0: steps to the second 10.0 entry, out of its window
        row(10.5, "cpu1", "CPUUtilization", 2),  // steps to 10.5: in, keyed without '_' before the node
        row(10.5, "gpu0", "GPUUtilization", 30), row(11.0, "cpu0", "CPUUtilization", 3),
    };
    EXPECT_EQ(describe(m::system_trace_events(rows)),
              "C 10000000 \"gpu0_GPUUtilization_algo-1\" {\"value\": 10.0}\n"
              "C 10000000 \"gpu1_GPUUtilization_algo-1\" {\"value\": 20.0}\n"
              "i 10000000 \"sys_metrics_bottlenecks\" {\"gpu0_GPUUtilization_algo-1\": 10.0, "
              "\"gpu1_GPUUtilization_algo-1\": 20.0}\n"
              "C 10500000 \"cpu0_CPUUtilization_algo-1\" {\"value\": 1.0}\n"
              "C 10500000 \"cpu1_CPUUtilization_algo-1\" {\"value\": 2.0}\n"
              "C 10500000 \"gpu0_GPUUtilization_algo-1\" {\"value\": 30.0}\n"
              "i 10500000 \"sys_metrics_bottlenecks\" {\"cpu1_CPUUtilizationalgo-1\": 2.0, "
              "\"gpu0_GPUUtilization_algo-1\": 30.0}\n");
}

TEST(NumpyArgsort, GivesNumpysOrderForEqualKeys) {
    // numpy 1.24's np.argsort(k, kind="quicksort") for these keys, run by hand.
    std::vector<std::int64_t> keys;
    for (int i = 0; i < 40; ++i) keys.push_back((i * 7) % 5);
    const std::vector<std::size_t> numpy = {0,  20, 15, 30, 10, 25, 35, 5,  23, 8,  33, 28, 13, 3,
                                            38, 18, 6,  21, 1,  36, 16, 26, 11, 31, 34, 29, 19, 14,
                                            9,  4,  24, 39, 27, 22, 17, 12, 32, 7,  2,  37};
    EXPECT_EQ(m::numpy_argsort(keys), numpy);
    std::vector<std::int64_t> runs(17, 3);
    runs.insert(runs.end(), 17, 1);
    runs.insert(runs.end(), 3, 2);
    const std::vector<std::size_t> numpy_runs = {18, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                                 32, 33, 19, 17, 34, 36, 35, 16, 1,  2,  3,  4,  5,
                                                 6,  7,  8,  10, 11, 12, 13, 14, 15, 9,  0};
    EXPECT_EQ(m::numpy_argsort(runs), numpy_runs);
    EXPECT_EQ(m::numpy_argsort({}), std::vector<std::size_t>{});
}

TEST(SystemMetricRows, SkipACorruptLastLineSilentlyAndNameAnyOtherBadLine) {
    std::vector<m::SystemRow> rows;
    std::vector<std::string> notes;
    const std::string good =
        R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":1.5,"NodeId":"algo-1","Timestamp":10.25})";
    m::read_system_rows("f.json", good + "\n" + good + "\n{\"Type\":\"cp", rows, notes);
    EXPECT_EQ(rows.size(), 2u);
    EXPECT_TRUE(notes.empty());
    rows.clear();
    m::read_system_rows(
        "g.json",
        good + "\nnot json\n" +
            R"({"Type":"cpu","Name":"cpu0","Dimension":"D","Value":"high","NodeId":"algo-1","Timestamp":1})" + "\n" +
            good + "\n",
        rows, notes);
    EXPECT_EQ(rows.size(), 2u);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0], "g.json: line 2 left out (not a JSON object)");
    EXPECT_EQ(notes[1], "g.json: line 3 left out (no number Value)");
    EXPECT_EQ(rows[0].ts_us, 10250000);
}

TEST(SystemMetricRows, AreFoundBySmdebugsFileNamePatternAndReadInItsOrder) {
    TempDir dir;
    const fs::path hour = dir.path() / "system" / "incremental" / "2020071317";
    fs::create_directories(hour);
    const std::string line =
        R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":1.0,"NodeId":"algo-1","Timestamp":1594662605.5})";
    for (const char* name : {"1594662660.algo-1.json", "1594662600.algo-2.json", "1594662600.algo-1.json",
                             "1594662600.node-1.json", "159466260.algo-1.json", ".1594662600.algo-1.json.tmp"})
        std::ofstream(hour / name) << line << "\n";
    std::ofstream(dir.path() / "system" / "1594662600.algo-9.json") << line << "\n";  // not in a subfolder
    const auto files = m::find_system_files(dir.str(), std::nullopt);
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(fs::path(files[0]).filename(), "1594662600.algo-1.json");
    EXPECT_EQ(fs::path(files[1]).filename(), "1594662600.algo-2.json");
    EXPECT_EQ(fs::path(files[2]).filename(), "1594662660.algo-1.json");
    // A range far from the files' minutes (more than smdebug's 3-minute buffer) opens only the
    // file just before it, as smdebug's bisect does.
    const auto later = m::find_system_files(dir.str(), std::make_pair(m::TraceNumber::integer(1594663600000000),
                                                                      m::TraceNumber::integer(1594663700000000)));
    ASSERT_EQ(later.size(), 1u);
    EXPECT_EQ(fs::path(later[0]).filename(), "1594662660.algo-1.json");
    std::vector<std::string> notes;
    const auto rows = m::read_system_metrics(
        dir.str(), std::make_pair(m::TraceNumber::integer(1594662605400000), m::TraceNumber::integer(1594662605600000)),
        notes);
    EXPECT_EQ(rows.size(), 1u) << "repeated rows are kept once";
}

TEST(SystemMetricRows, AreInTheRangeAsPythonComparesItsNanoseconds) {
    TempDir dir;
    const fs::path hour = dir.path() / "system" / "incremental" / "2020071317";
    fs::create_directories(hour);
    // int(1594662605.25 * 1000 * 1000 * 1000) is 1594662605249999872 in Python: 128 ns before the
    // microsecond 1594662605250000, so a range starting there leaves the row out, one ending there
    // keeps it (doubles cannot tell these nanoseconds apart).
    std::ofstream(hour / "1594662600.algo-1.json")
        << R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":1.0,"NodeId":"algo-1","Timestamp":1594662605.25})"
        << "\n";
    const auto us = [](std::int64_t v) { return m::TraceNumber::integer(v); };
    std::vector<std::string> notes;
    EXPECT_EQ(
        m::read_system_metrics(dir.str(), std::make_pair(us(1594662605250000), us(1594662606000000)), notes).size(),
        0u);
    EXPECT_EQ(
        m::read_system_metrics(dir.str(), std::make_pair(us(1594662605000000), us(1594662605250000)), notes).size(),
        1u);
    EXPECT_EQ(
        m::read_system_metrics(dir.str(), std::make_pair(us(1594662605249999), us(1594662605250000)), notes).size(),
        1u);
}

}  // namespace
