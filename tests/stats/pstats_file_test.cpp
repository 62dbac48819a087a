// The pstats file (cProfile's dump_stats format): read back by Python's own pstats module, entry
// by entry and caller by caller, sorted and printed by it; written by write_pstats and by
// `ringprof stats --pstats`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/stats.hpp"
#include "scenario.hpp"
#include "temp_dir.hpp"

namespace {

using ringprof::FunctionStats;
using ringprof::testing::TempDir;

struct CommandRun {
    int status = -1;
    std::string output;
};

CommandRun run(const std::string& command) {
    CommandRun r;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return r;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
    const int status = ::pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// Loads `path` with pstats and prints what it holds, one line per entry ("E") and per caller
// ("C"), floats to the last bit; then the output of sort_stats(...).print_stats() and
// print_callers() after a "TABLE" line.
const char kReader[] = R"PY(
import io, pstats, sys
s = pstats.Stats(sys.argv[1])
for (file, line, name), (cc, nc, tt, ct, callers) in s.stats.items():
    print("E\t%s\t%d\t%s\t%d\t%d\t%.17g\t%.17g" % (file, line, name, cc, nc, tt, ct))
    for (cfile, cline, cname), (cnc, ccc, ctt, cct) in callers.items():
        print("C\t%s:%d(%s)\t%s:%d(%s)\t%d\t%d\t%.17g\t%.17g" % (file, line, name, cfile, cline, cname, cnc, ccc, ctt, cct))
out = io.StringIO()
s.stream = out
s.sort_stats("cumulative").print_stats()
s.print_callers()
print("TABLE")
print(out.getvalue())
)PY";

std::string python_reading(const TempDir& dir, const std::string& pstats_path) {
    const std::string script = (dir.path() / "read_pstats.py").string();
    std::ofstream(script) << kReader;
    const CommandRun r = run("timeout 60 python3 " + script + " " + pstats_path);
    EXPECT_EQ(r.status, 0) << r.output;
    return r.output;
}

std::string stdname(const FunctionStats& f) { return fmt::format("{}:{}({})", f.file, f.line, f.label()); }

// The lines kReader prints for `stats`, as a set (dict order is not part of the format).
std::set<std::string> expected_lines(const std::vector<FunctionStats>& stats) {
    std::set<std::string> lines;
    for (const FunctionStats& f : stats) {
        const auto& c = f.counts;
        lines.insert(fmt::format("E\t{}\t{}\t{}\t{}\t{}\t{:.17g}\t{:.17g}", f.file, f.line, f.label(),
                                 c.primitive_calls, c.ncalls, c.tottime, c.cumtime));
    }
    for (const FunctionStats& caller : stats) {
        for (const auto& callee : caller.callees) {
            const auto& c = callee.counts;
            lines.insert(fmt::format("C\t{}\t{}\t{}\t{}\t{:.17g}\t{:.17g}", stdname(stats[callee.callee]),
                                     stdname(caller), c.ncalls, c.primitive_calls, c.tottime, c.cumtime));
        }
    }
    return lines;
}

std::set<std::string> read_lines(const std::string& output) {
    std::set<std::string> lines;
    std::size_t start = 0;
    while (start < output.size()) {
        const std::size_t end = output.find('\n', start);
        const std::string line = output.substr(start, end - start);
        if (line == "TABLE") break;
        lines.insert(line);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

std::vector<FunctionStats> record_scenario(const TempDir& dir) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir));
    p.enable();
    stats_scenario::top();
    p.disable();
    return p.stats();
}  // the session stops here and writes test_stats.json

void write_binary(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(PstatsFile, PstatsReadsEveryEntryAndCallerExactlyAndPrintsThem) {
    TempDir dir;
    const auto rows = record_scenario(dir);
    ASSERT_FALSE(rows.empty());
    const auto path = dir.path() / "scenario.prof";
    write_binary(path, ringprof::write_pstats(rows));
    const std::string output = python_reading(dir, path.string());
    EXPECT_EQ(read_lines(output), expected_lines(rows)) << output;
    const std::string table = output.substr(output.find("TABLE"));
    EXPECT_NE(table.find("Ordered by: cumulative time"), std::string::npos) << table;
    EXPECT_NE(table.find("was called by..."), std::string::npos) << table;
    // recurse(2) -> recurse(1): the recursive row as pstats prints recursion.
    EXPECT_NE(table.find("      2/1 "), std::string::npos) << table;
}

TEST(PstatsFile, CountsBeyond32BitsAndNamesThatAreNotUtf8LoadToo) {
    TempDir dir;
    std::vector<FunctionStats> rows(2);
    rows[0].file = "a.cpp";
    rows[0].line = 3;
    rows[0].name = "big";
    rows[0].counts = {5000000000ull, 4000000000ull, 1.5, 2.5};
    rows[0].callees.push_back({1, {70000000000ull, 70000000000ull, 0.25, 0.5}});
    rows[1].file = "~";
    rows[1].name = "<odd \xff name>";
    rows[1].counts = {70000000000ull, 70000000000ull, 0.25, 0.5};
    const auto path = dir.path() / "big.prof";
    write_binary(path, ringprof::write_pstats(rows));
    const std::string output = python_reading(dir, path.string());
    auto expected = rows;
    expected[1].name = "<odd \xEF\xBF\xBD name>";  // the invalid byte as U+FFFD
    EXPECT_EQ(read_lines(output), expected_lines(expected)) << output;
    // pstats prints a C function ("~", line 0) in braces.
    EXPECT_NE(output.find("{odd \xEF\xBF\xBD name}"), std::string::npos) << output;
}

TEST(PstatsFile, RowsSharingALabelAreOneEntryWithTheirCountsSummed) {
    TempDir dir;
    std::vector<FunctionStats> rows(2);
    for (auto& r : rows) {
        r.file = "s.py";
        r.line = 1;
        r.name = "step";
        r.counts = {2, 2, 0.5, 1.0};
    }
    const auto path = dir.path() / "twice.prof";
    write_binary(path, ringprof::write_pstats(rows));
    const std::string output = python_reading(dir, path.string());
    EXPECT_EQ(read_lines(output), (std::set<std::string>{"E\ts.py\t1\tstep\t4\t4\t1\t2"})) << output;
}

#ifdef RINGPROF_TOOL
TEST(StatsCli, PstatsConvertsASavedProfileIntoTheFilePstatsLoads) {
    TempDir dir;
    const auto rows = record_scenario(dir);
    const std::string saved = (dir.path() / "test_stats.json").string();
    const std::string out = (dir.path() / "converted.prof").string();
    const CommandRun r = run(std::string(RINGPROF_TOOL) + " stats " + saved + " --pstats " + out);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("wrote " + out), std::string::npos) << r.output;
    // The saved profile keeps full paths and exact counts: pstats reads the same entries.
    EXPECT_EQ(read_lines(python_reading(dir, out)), expected_lines(ringprof::load_stats_json(saved)));
    EXPECT_EQ(read_lines(python_reading(dir, out)), expected_lines(rows));
}

TEST(StatsCli, PstatsRefusesToReplaceItsInputAndNamesABadInput) {
    TempDir dir;
    record_scenario(dir);
    const std::string saved = (dir.path() / "test_stats.json").string();
    const std::string before = ringprof::testing::read_text(saved);
    CommandRun r = run(std::string(RINGPROF_TOOL) + " stats " + saved + " --pstats " + saved);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("would replace the input"), std::string::npos) << r.output;
    EXPECT_EQ(ringprof::testing::read_text(saved), before);

    const std::string missing = (dir.path() / "nope.json").string();
    const std::string out = (dir.path() / "out.prof").string();
    r = run(std::string(RINGPROF_TOOL) + " stats " + missing + " --pstats " + out);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find(missing + ": cannot open"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}
#endif

}  // namespace
