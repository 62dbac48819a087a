// `ringprof flame FOLDER`: a folder of timelines (as ringprof merge reads it) drawn as one page,
// with the steps view when the timelines have steps; a file that cannot be read is named and the
// exit status says the page is partial.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "../flame/page_data.hpp"
#include "../flame/straggler_folder.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

#ifdef RINGPROF_TOOL

namespace {

namespace fs = std::filesystem;
using flame_test::StragglerJob;
using ringprof::testing::TempDir;

// `ringprof flame ARGS` in `dir`.
ringprof::testing::ToolRun flame(const fs::path& dir, const std::string& args) {
    return ringprof::testing::run_ringprof("flame " + args, dir);
}

std::size_t lines(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += c == '\n';
    return n;
}

TEST(FlameFolder, DrawsTheFolderWithTheStepsViewUnderTheFoldersName) {
    TempDir dir;
    const StragglerJob job;
    flame_test::write_straggler_job(dir.path() / "job", job);
    const ringprof::testing::ToolRun r =
        flame(dir.path(), "job/");  // a trailing slash still names the page after the folder
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "ringprof flame: wrote job_flame.html\n");
    const std::string data = flame_test::page_data(ringprof::testing::read_text(dir.path() / "job_flame.html"));
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS) << data;
    EXPECT_EQ(std::string_view(doc["title"]), "job");
    const simdjson::dom::element view = doc["steps"];
    ASSERT_TRUE(view.is_object());
    EXPECT_EQ(simdjson::dom::array(view["nodes"]).size(), job.nodes.size());
    std::vector<int> marked;
    for (simdjson::dom::element st : simdjson::dom::array(view["steps"]))
        marked.push_back(static_cast<int>(int64_t(st["slowest"])));
    EXPECT_EQ(marked, job.straggler);
    EXPECT_EQ(simdjson::dom::array(doc["timeline"]["lanes"]).size(), 6u);
}

TEST(FlameFolder, TheCurrentFolderIsNamedByItsOwnName) {
    TempDir dir;
    flame_test::write_straggler_job(dir.path() / "run1", StragglerJob());
    const ringprof::testing::ToolRun r = flame(dir.path() / "run1", ".");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "ringprof flame: wrote run1_flame.html\n");
    const std::string data =
        flame_test::page_data(ringprof::testing::read_text(dir.path() / "run1" / "run1_flame.html"));
    simdjson::dom::parser parser;
    EXPECT_EQ(std::string_view(parser.parse(data)["title"]), "run1");
}

TEST(FlameFolder, AFolderWithoutStepsIsDrawnWithoutTheView) {
    TempDir dir;
    flame_test::write_straggler_job(dir.path() / "job", StragglerJob(), false);
    const ringprof::testing::ToolRun r = flame(dir.path(), "job -o page.html");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string data = flame_test::page_data(ringprof::testing::read_text(dir.path() / "page.html"));
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(data).get(doc), simdjson::SUCCESS) << data;
    EXPECT_TRUE(doc["steps"].is_null());
    EXPECT_EQ(simdjson::dom::array(doc["timeline"]["lanes"]).size(), 6u);
}

TEST(FlameFolder, FoldedStacksOfAFolderHoldEveryNodesSpans) {
    TempDir dir;
    const StragglerJob job;
    flame_test::write_straggler_job(dir.path() / "job", job);
    const ringprof::testing::ToolRun r = flame(dir.path(), "job --format folded -o -");
    ASSERT_EQ(r.code, 0) << r.err;
    // Self time of the step events in whole microseconds: each node's step minus its forward half
    // is on another thread (pid), so the step events' own time is all of theirs.
    long long expected = 0;
    for (const auto& node : job.us)
        for (long long us : node) expected += us;
    const std::string prefix = "root;Step:ModeKeys.TRAIN ";
    const std::size_t at = r.out.find(prefix);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(std::stoll(r.out.substr(at + prefix.size())), expected) << r.out;
}

TEST(FlameFolder, AnUnreadableTimelineIsNamedAndThePageIsPartial) {
    TempDir dir;
    flame_test::write_straggler_job(dir.path() / "job", StragglerJob());
    const fs::path bad =
        dir.path() / "job" / "framework" / "pevents" / "2020071317" / "1594662605070000_41-algo-4_pythontimeline.json";
    steps_test::write_file(bad, "[{\"name\": \"x\", \"ph\": \"X\", \"ts\": 1, \"dur\": ");
    const ringprof::testing::ToolRun r = flame(dir.path(), "job -o page.html");
    EXPECT_EQ(r.code, 3) << r.err;
    // Named as the folder was given on the command line.
    EXPECT_NE(r.err.find("ringprof flame: skipped job/framework/pevents/2020071317/" + bad.filename().string() + ": "),
              std::string::npos)
        << r.err;
    EXPECT_EQ(lines(r.err), 2u) << "one line for the file, one for the page: " << r.err;
    const std::string data = flame_test::page_data(ringprof::testing::read_text(dir.path() / "page.html"));
    simdjson::dom::parser parser;
    EXPECT_EQ(simdjson::dom::array(parser.parse(data)["steps"]["nodes"]).size(), 3u);
}

TEST(FlameFolder, AFolderWithoutTimelinesIsOneLineAndNoPage) {
    TempDir dir;
    fs::create_directories(dir.path() / "empty");
    const ringprof::testing::ToolRun r = flame(dir.path(), "empty -o page.html");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "page.html"));
}

// One good event and one without its dur: what merge and steps report as a malformed event left
// out (exit 3), flame reports the same way, for a folder and for the file alone.
void write_with_malformed_event(const fs::path& file) {
    fs::create_directories(file.parent_path());
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(R"([{"name": "ok", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": 1},)"
               R"( {"name": "no-dur", "ph": "X", "pid": 1, "tid": 1, "ts": 5}])",
               f);
    std::fclose(f);
}

TEST(FlameFolder, MalformedEventsAreReportedAsMergeReportsThem) {
    TempDir dir;
    const fs::path file = dir.path() / "job" / "framework" / "pevents" / "2020071317" /
                          "1594662605000010_2-m_model_timeline.json";
    write_with_malformed_event(file);
    const ringprof::testing::ToolRun merged =
        ringprof::testing::run_ringprof("merge job -o " + (dir.path() / "out").string(), dir.path());
    ASSERT_EQ(merged.code, 3) << merged.err;
    // merge's line, less its command name: "warning: <file>: 1 malformed event(s) left out, ...".
    const std::size_t at = merged.err.find("ringprof merge: warning: ");
    ASSERT_NE(at, std::string::npos) << merged.err;
    const std::string warning =
        merged.err.substr(at + 16, merged.err.find('\n', at) - at - 16);
    ASSERT_NE(warning.find("2-m_model_timeline.json: 1 malformed event(s) left out"), std::string::npos) << warning;

    const ringprof::testing::ToolRun folder = flame(dir.path(), "job -o job.html");
    EXPECT_EQ(folder.code, 3) << folder.err;
    EXPECT_NE(folder.err.find("ringprof flame: " + warning), std::string::npos) << folder.err;
    EXPECT_TRUE(fs::exists(dir.path() / "job.html")) << "the page is still drawn";

    const ringprof::testing::ToolRun alone = flame(dir.path(), file.string() + " -o alone.html");
    EXPECT_EQ(alone.code, 3) << alone.err;
    EXPECT_NE(alone.err.find("ringprof flame: warning: " + file.string() + ": 1 malformed event(s) left out"),
              std::string::npos)
        << alone.err;
    EXPECT_TRUE(fs::exists(dir.path() / "alone.html"));
}

}  // namespace

#endif  // RINGPROF_TOOL
