// `ringprof merge-timers` on files of both forms, including a truncated one.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

int run_tool(const std::string& args, const std::string& stderr_file) {
    const std::string cmd = std::string(RINGPROF_TOOL) + " merge-timers " + args + " 2>" + stderr_file;
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TimerTree worker_tree(double step_total, std::uint64_t steps) {
    TimerTree t;
    t.root.total = step_total + 0.5;
    t.root.count = 1;
    TimerNode& s = t.root.child("env_step");
    s.total = step_total;
    s.count = steps;
    t.gauge("reward").set(steps, steps);
    return t;
}

TEST(MergeTimersCli, GraftsEveryFileAndMarksMergedNodesParallel) {
    testing::TempDir dir;
    const std::string a = dir.str() + "/a_timers.json", b = dir.str() + "/b_timers.json";
    std::ofstream(a) << write_timers_json(worker_tree(1.0, 10), TimersFormat::List);
    std::ofstream(b) << write_timers_json(worker_tree(2.0, 20), TimersFormat::Dict);
    const std::string out = dir.str() + "/merged.json";
    ASSERT_EQ(run_tool("--graft workers/worker_root -o " + out + " " + a + " " + b, dir.str() + "/err"), 0);
    const TimerTree m = load_timers_json(out);
    const TimerNode* root = m.root.find_path("workers/worker_root");
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->count, 2u);
    EXPECT_TRUE(root->is_parallel);
    EXPECT_DOUBLE_EQ(root->find("env_step")->total, 3.0);
    EXPECT_EQ(root->find("env_step")->count, 30u);
    EXPECT_TRUE(root->find("env_step")->is_parallel);
    ASSERT_EQ(m.gauges.size(), 1u);
    EXPECT_EQ(m.gauges[0].second.count, 2u);
    EXPECT_EQ(m.gauges[0].second.max, 20.0);
}

TEST(MergeTimersCli, ExactlyOneFileIsStillMarkedParallel) {
    // Like ML-Agents: what came from another process ran beside this one, even from one worker.
    testing::TempDir dir;
    const std::string a = dir.str() + "/a_timers.json";
    std::ofstream(a) << write_timers_json(worker_tree(1.0, 10), TimersFormat::Dict);
    const std::string out = dir.str() + "/merged.json";
    ASSERT_EQ(run_tool("--graft workers/worker_root -o " + out + " " + a, dir.str() + "/err"), 0);
    const TimerTree m = load_timers_json(out);
    const TimerNode* step = m.root.find_path("workers/worker_root/env_step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, 10u);
    EXPECT_DOUBLE_EQ(step->total, 1.0);
    EXPECT_TRUE(step->is_parallel);
}

TEST(MergeTimersCli, TruncatedFileIsNamedWithItsPositionAndSkippedWhole) {
    testing::TempDir dir;
    const std::string good = dir.str() + "/good.json", bad = dir.str() + "/bad.json";
    std::ofstream(good) << write_timers_json(worker_tree(1.0, 10), TimersFormat::List);
    const std::string text = write_timers_json(worker_tree(5.0, 50), TimersFormat::List);
    std::ofstream(bad) << text.substr(0, text.size() - 40);
    const std::string out = dir.str() + "/merged.json", err = dir.str() + "/err";
    EXPECT_EQ(run_tool("-o " + out + " " + good + " " + bad, err), 3);
    const std::string message = testing::read_text(err);
    EXPECT_NE(message.find(bad), std::string::npos) << message;
    EXPECT_NE(message.find("byte"), std::string::npos) << message;
    const TimerTree m = load_timers_json(out);
    EXPECT_EQ(m.root.find("env_step")->count, 10u) << "nothing of the bad file may be merged";
}

TEST(MergeTimersCli, NoReadableInputWritesNothing) {
    testing::TempDir dir;
    const std::string out = dir.str() + "/merged.json";
    EXPECT_EQ(run_tool("-o " + out + " " + dir.str() + "/missing.json", dir.str() + "/err"), 1);
    EXPECT_FALSE(std::ifstream(out).good());
    EXPECT_NE(testing::read_text(dir.str() + "/err").find("missing.json"), std::string::npos);
}

}  // namespace
}  // namespace ringprof
