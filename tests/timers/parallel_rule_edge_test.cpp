// The parallel rule at its edge: a node is parallel when two or more threads fed it, or when it
// came from merged worker processes. Exactly 2 and exactly 1, deterministically (threads are
// joined before the snapshot, so no timing can change the counts).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

Config edge_config(const testing::TempDir& dir) {
    Config c = ringprof::testing::timers_only(dir, "edge");
    return c;
}

void shared_work(int calls) {
    for (int i = 0; i < calls; ++i) {
        PROF_SCOPE("shared");
        PROF_SCOPE("shared_child");
    }
}

TEST(ParallelRuleEdge, ANodeFedByExactlyTwoThreadsIsParallel) {
    testing::TempDir dir;
    Session session(edge_config(dir));
    std::thread a([] { shared_work(3); });
    a.join();
    std::thread b([] { shared_work(2); });
    b.join();
    const Snapshot s = session.snapshot();
    const TimerNode* shared = s.tree.root.find("shared");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->count, 5u);
    EXPECT_TRUE(shared->is_parallel) << "2 threads fed it";
    ASSERT_NE(shared->find("shared_child"), nullptr);
    EXPECT_TRUE(shared->find("shared_child")->is_parallel);
}

TEST(ParallelRuleEdge, ALiveThreadAndAnExitedOneMakeTwo) {
    testing::TempDir dir;
    Session session(edge_config(dir));
    std::thread([] { shared_work(1); }).join();  // folded when its ring is retired
    shared_work(1);                              // this thread is still alive at the snapshot
    const Snapshot s = session.snapshot();
    const TimerNode* shared = s.tree.root.find("shared");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->count, 2u);
    EXPECT_TRUE(shared->is_parallel);
}

TEST(ParallelRuleEdge, ANodeFedByOneThreadIsNotParallelHoweverOftenItRuns) {
    testing::TempDir dir;
    Session session(edge_config(dir));
    std::thread a([] {
        shared_work(4);
        { PROF_SCOPE("other"); }
        shared_work(4);
    });
    a.join();
    std::thread([] { PROF_SCOPE("other"); }).join();  // another thread, on another node only
    const Snapshot s = session.snapshot();
    const TimerNode* shared = s.tree.root.find("shared");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->count, 8u);
    EXPECT_FALSE(shared->is_parallel) << "1 thread fed it";
    EXPECT_FALSE(shared->find("shared_child")->is_parallel);
    ASSERT_NE(s.tree.root.find("other"), nullptr);
    EXPECT_TRUE(s.tree.root.find("other")->is_parallel) << "2 threads fed it";
}

TEST(ParallelRuleEdge, TheTimersFileSaysTheSameAfterParsing) {
    testing::TempDir dir;
    Session session(edge_config(dir));
    std::thread([] { shared_work(1); }).join();
    std::thread([] { shared_work(1); }).join();
    std::thread([] { PROF_SCOPE("alone"); }).join();
    session.flush();
    const TimerTree t = load_timers_json(dir.str() + "/edge_timers.json");
    ASSERT_NE(t.root.find("shared"), nullptr);
    EXPECT_TRUE(t.root.find("shared")->is_parallel);
    ASSERT_NE(t.root.find("alone"), nullptr);
    EXPECT_FALSE(t.root.find("alone")->is_parallel);
}

std::string worker_tree_json(double step_seconds, std::uint64_t steps) {
    TimerTree t;
    t.root.total = step_seconds;
    t.root.count = 1;
    TimerNode& step = t.root.child("env_step");
    step.total = step_seconds;
    step.count = steps;
    return write_timers_json(t, TimersFormat::Dict);
}

TEST(ParallelRuleEdge, ExactlyTwoMergedWorkerTreesSumAndAreParallel) {
    testing::TempDir dir;
    Session session(edge_config(dir));
    {
        PROF_SCOPE("workers");
        merge_worker_tree(worker_tree_json(1.0, 3), "worker_root");
        merge_worker_tree(worker_tree_json(2.0, 4), "worker_root");
    }
    const Snapshot s = session.snapshot();
    const TimerNode* workers = s.tree.root.find("workers");
    ASSERT_NE(workers, nullptr);
    EXPECT_FALSE(workers->is_parallel) << "the parent's own scope, fed by one thread";
    const TimerNode* root = workers->find("worker_root");
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->count, 2u);
    EXPECT_TRUE(root->is_parallel);
    const TimerNode* step = root->find("env_step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, 7u);
    EXPECT_DOUBLE_EQ(step->total, 3.0);
    EXPECT_TRUE(step->is_parallel);
}

TEST(ParallelRuleEdge, OneMergedWorkerTreeIsParallelToo) {
    // ML-Agents marks everything a worker process sent as parallel, even from a single worker:
    // its time ran beside the parent's.
    testing::TempDir dir;
    Session session(edge_config(dir));
    {
        PROF_SCOPE("workers");
        merge_worker_tree(worker_tree_json(1.5, 3), "worker_root");
    }
    const Snapshot s = session.snapshot();
    const TimerNode* step = s.tree.root.find_path("workers/worker_root/env_step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, 3u);
    EXPECT_DOUBLE_EQ(step->total, 1.5);
    EXPECT_TRUE(step->is_parallel);
    EXPECT_FALSE(s.tree.root.find("workers")->is_parallel);
}

}  // namespace
}  // namespace ringprof
