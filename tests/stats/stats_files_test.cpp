// The saved profile: the stats backend's files, reading them back, `ringprof stats`, and the
// errors for files that are not saved profiles.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/stats.hpp"
#include "scenario.hpp"
#include "tool_run.hpp"

namespace {

using ringprof::testing::read_text;

void expect_same(const std::vector<ringprof::FunctionStats>& a, const std::vector<ringprof::FunctionStats>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].file, b[i].file);
        EXPECT_EQ(a[i].line, b[i].line);
        EXPECT_EQ(a[i].label(), b[i].label());
        EXPECT_EQ(a[i].counts.ncalls, b[i].counts.ncalls);
        EXPECT_EQ(a[i].counts.primitive_calls, b[i].counts.primitive_calls);
        EXPECT_DOUBLE_EQ(a[i].counts.tottime, b[i].counts.tottime);
        EXPECT_DOUBLE_EQ(a[i].counts.cumtime, b[i].counts.cumtime);
        ASSERT_EQ(a[i].callees.size(), b[i].callees.size());
        for (std::size_t k = 0; k < a[i].callees.size(); ++k) {
            EXPECT_EQ(a[i].callees[k].callee, b[i].callees[k].callee);
            EXPECT_EQ(a[i].callees[k].counts.ncalls, b[i].callees[k].counts.ncalls);
            EXPECT_DOUBLE_EQ(a[i].callees[k].counts.cumtime, b[i].callees[k].counts.cumtime);
        }
    }
}

std::vector<ringprof::FunctionStats> record_scenario(const ringprof::testing::TempDir& dir) {
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir));
    p.enable();
    stats_scenario::top();
    p.disable();
    return p.stats();
}  // the session stops here and writes its final files

TEST(StatsBackend, WritesTheTableAndASavedProfileThatReadsBack) {
    ringprof::testing::TempDir dir;
    const auto rows = record_scenario(dir);
    ASSERT_EQ(rows.size(), 5u);
    const auto table = dir.path() / "test_stats.txt";
    const auto json = dir.path() / "test_stats.json";
    ASSERT_TRUE(std::filesystem::exists(table));
    ASSERT_TRUE(std::filesystem::exists(json));
    EXPECT_EQ(read_text(table), ringprof::stats_table(rows));
    expect_same(ringprof::load_stats_json(json.string()), rows);
}

TEST(StatsJson, RoundTripsExactly) {
    std::vector<ringprof::FunctionStats> rows(2);
    rows[0] = {"/a \"quoted\".cpp",      3, "f", "(x:vector<float>(shape=(2,)))", {4, 2, 0.1, 1.0 / 3.0},
               {{1, {2, 2, 1e-7, 2e-7}}}, ""};
    rows[1] = {"b.cpp", 9, "g", "", {2, 2, 2e-7, 2e-7}, {}, ""};
    expect_same(ringprof::parse_stats_json(ringprof::write_stats_json(rows, "run")), rows);
    expect_same(ringprof::parse_stats_json(ringprof::write_stats_json({})), {});
}

struct BadFile {
    const char* text;
    const char* problem;
};

TEST(StatsJson, BadFilesNameTheFileAndTheProblem) {
    ringprof::testing::TempDir dir;
    const BadFile cases[] = {
        {"", "not a ringprof stats file"},
        {"[1, 2]", "the top level is not an object"},
        {"{\"format\": \"ringprof-stats\", \"version\": 1}", "no \"functions\" list"},
        {"{\"functions\": []}", "no \"format\""},
        {"{\"format\": \"other\", \"functions\": []}", "\"format\" is not \"ringprof-stats\""},
        {"{\"format\": \"ringprof-stats\", \"version\": 7, \"functions\": []}", "newer ringprof"},
        {"{\"format\": \"ringprof-stats\", \"functions\": [{\"name\": \"f\", \"ncalls\": \"2\"}]}",
         "\"ncalls\" is not a number"},
        {"{\"format\": \"ringprof-stats\", \"functions\": [{\"name\": \"f\", \"ncalls\": 1,\n \"callees\": "
         "[{\"callee\": 4}]}]}",
         "names callee 4 of only 1 functions"},
        {"{\"format\": \"ringprof-stats\",\n \"functions\": [{\"name\": \"f\", \"ncalls\": 1}", "line 2"},
    };
    for (const BadFile& c : cases) {
        const std::string path = (dir.path() / "bad.json").string();
        std::ofstream(path) << c.text;
        try {
            ringprof::load_stats_json(path);
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const ringprof::StatsFileError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(path), std::string::npos) << message;
            EXPECT_NE(message.find(c.problem), std::string::npos) << message;
        }
    }
    EXPECT_THROW(ringprof::load_stats_json((dir.path() / "missing.json").string()), ringprof::StatsFileError);
}

#ifdef RINGPROF_TOOL
using ringprof::testing::ToolRun;

ToolRun run_tool(const std::string& args) { return ringprof::testing::run_ringprof(args); }

TEST(StatsCli, PrintsTheSavedProfileWithSortAndLimit) {
    ringprof::testing::TempDir dir;
    const auto rows = record_scenario(dir);
    const std::string path = (dir.path() / "test_stats.json").string();
    ringprof::StatsTableOptions o;
    o.sort = ringprof::StatsSort::Cumulative;
    o.limit = 2;
    o.source = path;
    const ToolRun r = run_tool("stats " + path + " --sort cumulative --limit 2");
    EXPECT_EQ(r.code, 0) << r.text();
    EXPECT_EQ(r.out, ringprof::stats_table(rows, o));
    EXPECT_NE(r.text().find("List reduced from 5 to 2"), std::string::npos);
}

// Directories are stripped by default (pstats' strip_dirs()); --full-paths prints each file as
// it was recorded, so a row's file keeps the directories the default leaves out.
TEST(StatsCli, FullPathsPrintsTheRecordedPathsTheDefaultStripsToTheirLastComponent) {
    ringprof::testing::TempDir dir;
    const auto rows = record_scenario(dir);
    const std::string path = (dir.path() / "test_stats.json").string();
    std::string recorded_dir;
    for (const auto& f : rows) {
        if (f.file.find('/') != std::string::npos) recorded_dir = f.file.substr(0, f.file.rfind('/') + 1);
    }
    ASSERT_FALSE(recorded_dir.empty()) << "the scenario records no file with a directory";
    ringprof::StatsTableOptions o;
    o.source = path;
    o.strip_dirs = false;
    const ToolRun full = run_tool("stats " + path + " --full-paths");
    EXPECT_EQ(full.code, 0) << full.text();
    EXPECT_EQ(full.out, ringprof::stats_table(rows, o));
    EXPECT_NE(full.text().find(recorded_dir), std::string::npos) << full.text();
    const ToolRun stripped = run_tool("stats " + path);
    EXPECT_EQ(stripped.code, 0) << stripped.text();
    EXPECT_EQ(stripped.text().find(recorded_dir), std::string::npos) << stripped.text();
}

TEST(StatsCli, ErrorsNameTheFileAndTheProblem) {
    ringprof::testing::TempDir dir;
    const std::string missing = (dir.path() / "nope.json").string();
    ToolRun r = run_tool("stats " + missing);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.text().find(missing + ": cannot open"), std::string::npos) << r.text();

    const std::string timers = (dir.path() / "x_timers.json").string();
    std::ofstream(timers) << "{\"name\": \"root\", \"total\": 1.0}";
    r = run_tool("stats " + timers);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.text().find(timers + ": not a ringprof stats file"), std::string::npos) << r.text();

    r = run_tool("stats " + timers + " --sort bogus");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.text().find("unknown sort key 'bogus'"), std::string::npos) << r.text();
    r = run_tool("stats " + timers + " --limit -3");
    EXPECT_EQ(r.code, 2);
    r = run_tool("stats");
    EXPECT_EQ(r.code, 2);
}
#endif

}  // namespace
