// A timer node is a name under a parent: a call that changes its name or its parent alone is a
// node of its own, and one that changes neither is the same node, whichever marker recorded it
// and on whichever thread (two threads feeding one node make it parallel, as ML-Agents' merge of
// thread trees does). Read back from the timers file.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace {

void base() {
    PROF_SCOPE("outer");
    PROF_SCOPE("inner");
}
void same_names_other_markers() {
    PROF_SCOPE("outer");
    PROF_SCOPE("inner");
}
void other_name() {
    PROF_SCOPE("outer");
    PROF_SCOPE("inner_b");
}
void other_parent() {
    PROF_SCOPE("outer_b");
    PROF_SCOPE("inner");
}
void base_on_another_thread() { std::thread(base).join(); }

struct NodeCase {
    const char* component;
    std::function<void()> second;                      // recorded after base() on this thread
    std::map<std::string, std::uint64_t> inner_nodes;  // path -> count of every node named inner*
    bool parallel;                                     // the base node's is_parallel
};

// Every node whose name starts with "inner", by '/'-joined path below the root.
void collect(const ringprof::TimerNode& n, const std::string& path, std::map<std::string, std::uint64_t>& out,
             std::map<std::string, bool>& parallel) {
    for (const ringprof::TimerNode& c : n.children) {
        const std::string p = path.empty() ? c.name : path + "/" + c.name;
        if (c.name.rfind("inner", 0) == 0) {
            EXPECT_EQ(out.count(p), 0u) << "two nodes at " << p;
            out[p] = c.count;
            parallel[p] = c.is_parallel;
        }
        collect(c, p, out, parallel);
    }
}

TEST(TimerNodeKeys, ANameOrAParentAloneMakesANodeAndNeitherMarkerNorThreadDoes) {
    const NodeCase cases[] = {
        {"nothing", base, {{"outer/inner", 2}}, false},
        {"marker (same names at other lines)", same_names_other_markers, {{"outer/inner", 2}}, false},
        {"thread", base_on_another_thread, {{"outer/inner", 2}}, true},
        {"name", other_name, {{"outer/inner", 1}, {"outer/inner_b", 1}}, false},
        {"parent", other_parent, {{"outer/inner", 1}, {"outer_b/inner", 1}}, false},
    };
    for (const NodeCase& c : cases) {
        SCOPED_TRACE(c.component);
        ringprof::testing::TempDir dir;
        {
            ringprof::Session session(ringprof::testing::timers_only(dir, "keys"));
            base();
            c.second();
        }  // the session's end writes the file
        const ringprof::TimerTree t = ringprof::load_timers_json(dir.str() + "/keys_timers.json");
        std::map<std::string, std::uint64_t> inner;
        std::map<std::string, bool> parallel;
        collect(t.root, "", inner, parallel);
        EXPECT_EQ(inner, c.inner_nodes);
        EXPECT_EQ(parallel["outer/inner"], c.parallel);
    }
}

// A worker's tree grafted below a scope is parallel (it ran beside others), and the scopes above
// it count only the threads that ran them: here one, which has exited by then.
TEST(TimerNodeKeys, AGraftIsParallelAndAddsNoThreadToTheScopesAboveIt) {
    ringprof::testing::TempDir dir;
    {
        ringprof::Session session(ringprof::testing::timers_only(dir, "graft"));
        ringprof::Context under_outer;
        std::thread([&] {
            PROF_SCOPE("outer");
            under_outer = ringprof::capture_context();
        }).join();
        ringprof::TimerTree worker;
        ringprof::TimerNode& step = worker.root.child("worker_step");
        step.total = 0.5;
        step.count = 3;
        session.flush();  // the exited thread is folded into the process tree before the graft
        session.graft(under_outer, "workers", worker);
    }
    const ringprof::TimerTree t = ringprof::load_timers_json(dir.str() + "/graft_timers.json");
    const ringprof::TimerNode* outer = t.root.find("outer");
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->count, 1u);
    EXPECT_FALSE(outer->is_parallel);
    const ringprof::TimerNode* step = outer->find_path("workers/worker_step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, 3u);
    EXPECT_TRUE(step->is_parallel);
}

}  // namespace
