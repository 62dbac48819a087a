// `ringprof flame` run as a user would, on fixtures in both ML-Agents forms.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "flame_test_trees.hpp"
#include "folded_lines.hpp"
#include "gzip_text.hpp"
#include "ringprof/timers_json.hpp"
#include "tool_run.hpp"

#ifdef RINGPROF_TOOL

namespace {

std::string work_dir() {
    const std::string dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/flame_cli";
    std::filesystem::create_directories(dir);
    return dir;
}

// `ringprof flame ARGS` in the area's scratch folder (outputs named by default land there).
using ringprof::testing::ToolRun;

ToolRun run_tool(const std::string& args) { return ringprof::testing::run_ringprof("flame " + args, work_dir()); }

std::string fixture(const char* name) { return std::string(RINGPROF_TEST_SOURCE_DIR) + "/flame/fixtures/" + name; }

class CliForms : public ::testing::TestWithParam<const char*> {};

TEST_P(CliForms, WritesEveryFormatFromATimersFile) {
    const std::string input = fixture(GetParam());
    const ringprof::TimerTree tree = ringprof::load_timers_json(input);
    const std::string stem = std::string(GetParam()).substr(0, std::string(GetParam()).find('.'));

    ASSERT_EQ(run_tool("'" + input + "' -o " + stem + ".txt").code, 0);
    const auto stacks = flame_test::parse_folded(flame_test::read_text(work_dir() + "/" + stem + ".txt"));
    flame_test::for_each_path(tree.root,
                              [&](const std::string& path, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
                                  std::string key = path;
                                  for (char& c : key)
                                      if (c == '/') c = ';';
                                  const long long self_us = std::llround(n.self() * 1e6);
                                  if (self_us > 0) {
                                      EXPECT_EQ(stacks.count(key) ? stacks.at(key) : -1, self_us) << key;
                                  }
                              });

    ASSERT_EQ(run_tool("'" + input + "' --format svg -o " + stem + ".svg").code, 0);
    const std::string svg = flame_test::read_text(work_dir() + "/" + stem + ".svg");
    flame_test::for_each_path(tree.root,
                              [&](const std::string&, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
                                  EXPECT_NE(svg.find("data-name=\"" + n.name + "\""), std::string::npos) << n.name;
                              });

    // Default: HTML named after the input, in the current directory.
    const ToolRun html = run_tool("'" + input + "'");
    ASSERT_EQ(html.code, 0) << html.err;
    const std::string page = flame_test::read_text(work_dir() + "/" + stem + "_flame.html");
    EXPECT_NE(page.find("\"worker_root\""), std::string::npos);
    EXPECT_NE(page.find("</html>"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(BothMlAgentsForms, CliForms,
                         ::testing::Values("training_timers_dict.json", "training_timers_list.json"));

// Without --format, the output's extension chooses: .svg an SVG, .txt and .folded folded stacks,
// anything else the HTML page. Each file is told apart by what it starts with.
TEST(Cli, TheOutputsExtensionChoosesItsFormatWhenNoFormatIsGiven) {
    const std::string input = fixture("training_timers_dict.json");
    const std::pair<const char*, const char*> cases[] = {{"by_ext.svg", "<?xml"},
                                                         {"by_ext.txt", "root"},
                                                         {"by_ext.folded", "root"},
                                                         {"by_ext.html", "<!DOCTYPE html>"},
                                                         {"by_ext.page", "<!DOCTYPE html>"}};
    for (const auto& [name, start] : cases) {
        const ToolRun r = run_tool("'" + input + "' -o " + name);
        ASSERT_EQ(r.code, 0) << name << ": " << r.err;
        const std::string text = flame_test::read_text(work_dir() + "/" + name);
        EXPECT_EQ(text.rfind(start, 0), 0u) << name << " starts with: " << text.substr(0, 40);
    }
}

TEST(Cli, ReadsACompressedChromeTrace) {
    const std::string trace = work_dir() + "/run.trace.json.gz";
    const std::string text = R"({"traceEvents": [
{"name": "thread_name", "ph": "M", "pid": 1, "tid": 5, "args": {"name": "learner"}},
{"name": "update", "ph": "X", "pid": 1, "tid": 5, "ts": 0, "dur": 2500},
{"name": "sgd", "ph": "X", "pid": 1, "tid": 5, "ts": 100, "dur": 2000}]})";
    ASSERT_TRUE(ringprof::testing::write_gzip_file(trace, text));

    const ToolRun r = run_tool("'" + trace + "' -f folded");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto stacks = flame_test::parse_folded(flame_test::read_text(work_dir() + "/run_folded.txt"));
    EXPECT_EQ(stacks.at("root;update"), 500);
    EXPECT_EQ(stacks.at("root;update;sgd"), 2000);

    ASSERT_EQ(run_tool("'" + trace + "'").code, 0);
    EXPECT_NE(flame_test::read_text(work_dir() + "/run_flame.html").find("\"learner (tid 5)\""), std::string::npos);
}

TEST(Cli, WritesToStandardOutput) {
    const std::string out = work_dir() + "/stdout.txt";
    const std::string cmd =
        "'" RINGPROF_TOOL "' flame '" + fixture("training_timers_dict.json") + "' -f folded -o - >'" + out + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(flame_test::read_text(out).rfind("root ", 0), 0u);
}

TEST(Cli, BadInputIsOneMessageNamingTheFile) {
    const std::string bad = work_dir() + "/not_a_profile.json";
    flame_test::write_text(bad, "{\"name\": \"root\", \"total\": \"soon\"}");
    const ToolRun r = run_tool("'" + bad + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not a number"), std::string::npos) << r.err;

    const ToolRun missing = run_tool("'" + work_dir() + "/nowhere.json'");
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("nowhere.json: cannot open"), std::string::npos) << missing.err;
}

TEST(Cli, BadArgumentsAreUsageErrors) {
    EXPECT_EQ(run_tool("").code, 2);
    EXPECT_EQ(run_tool("'" + fixture("training_timers_dict.json") + "' --format png").code, 2);
    EXPECT_EQ(run_tool("a.json b.json").code, 2);
    EXPECT_EQ(run_tool("--bogus").code, 2);
}

}  // namespace

#endif  // RINGPROF_TOOL
