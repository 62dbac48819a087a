// Several drainer threads (Config::drainers) make exactly what one makes: the same process tree
// with the same parallel flags, the same statistics, gauges and steps, and every thread's spans
// in the same order, while the recording threads' rings are read by up to four threads at once.
#include <dirent.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ringprof/context.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/signature.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using testing::Collected;
using testing::CollectingBackend;
using testing::TempDir;

constexpr int kSplitWorkers = 6;

// Threads of this process named `name` now (the drainer names its helpers as itself).
int threads_named(const std::string& name) {
    int found = 0;
    DIR* dir = ::opendir("/proc/self/task");
    if (dir == nullptr) return -1;
    while (const dirent* e = ::readdir(dir)) {
        if (e->d_name[0] == '.') continue;
        std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
        std::string line;
        if (std::getline(comm, line) && line == name) ++found;
    }
    ::closedir(dir);
    return found;
}

// ringprof's own scopes (a ring's growth, a wait for room) come when the timing makes them.
bool recorded_by_ringprof(const std::string& name) { return name.rfind("ringprof.", 0) == 0; }

void split_signed(int x, const std::string& label) { PROF_FUNCTION_SIG(x, label); }

// What one worker records: the same on every run, whichever thread reads its ring.
void split_worker(int w, Context spawned_in, int iterations) {
    set_thread_name("split-" + std::to_string(w));
    AdoptContext adopt(spawned_in);
    for (int i = 0; i < iterations; ++i) {
        PROF_STEP(i);
        PROF_SCOPE("iteration");
        { PROF_SCOPE("shared"); }
        if (w % 2 == 0) {
            PROF_SCOPE("even");
            PROF_SCOPE("inner");
        }
        split_signed(i, w % 3 == 0 ? "x" : "yy");
        if (i % 64 == 0) PROF_GAUGE("split_loss", static_cast<double>(i % 1000));
    }
}

struct SplitRun {
    Snapshot snapshot;
    // Per thread name, its spans in the order the timeline got them: name, depth, step.
    std::map<std::string, std::vector<std::tuple<std::string, std::uint32_t, std::int64_t>>> spans;
    std::uint64_t timeline_dropped = 0;
    int drain_threads = 0;
};

SplitRun run_split_workload(std::uint32_t drainers, int iterations) {
    TempDir dir;
    Config c = testing::timeline_config(dir.str(), {"timers"});
    c.drainers = drainers;
    c.system_metrics = false;
    c.timeline_queue_spans = std::size_t{1} << 24;  // every span kept: the orders are compared
    Collected collected;
    SplitRun out;
    {
        Session session(c);
        session.add_backend(std::make_unique<CollectingBackend>(collected));
        {
            PROF_SCOPE("spawn");
            const Context here = capture_context();
            std::vector<std::thread> workers;
            for (int w = 0; w < kSplitWorkers; ++w) workers.emplace_back(split_worker, w, here, iterations);
            for (std::thread& t : workers) t.join();
        }
        // A flush is a pass over every ring; a pass split under this flush, or before it, started
        // its helpers already, and each names itself as it starts, so the count waits for that.
        session.flush();
        out.drain_threads = threads_named("ringprof-drain");
        for (int tries = 0; tries < 500 && drainers > 1 && out.drain_threads < 2; ++tries) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            out.drain_threads = threads_named("ringprof-drain");
        }
        out.snapshot = session.snapshot();
    }
    std::lock_guard<std::mutex> lock(collected.mutex);
    for (const Span& s : collected.spans) {
        const auto name = collected.names.find(s.tid);
        const std::string thread = name != collected.names.end() ? name->second : std::to_string(s.tid);
        if (!recorded_by_ringprof(s.name)) out.spans[thread].emplace_back(s.name, s.depth, s.step);
    }
    out.timeline_dropped = collected.status.dropped_spans;
    return out;
}

std::size_t workload_children(const TimerNode& n) {
    std::size_t k = 0;
    for (const TimerNode& child : n.children) k += recorded_by_ringprof(child.name) ? 0 : 1;
    return k;
}

// Names, counts and parallel flags, children by name: what does not depend on timing.
void expect_same_shape(const TimerNode& a, const TimerNode& b, const std::string& path) {
    EXPECT_EQ(a.count, b.count) << path;
    EXPECT_EQ(a.is_parallel, b.is_parallel) << path;
    ASSERT_EQ(workload_children(a), workload_children(b)) << path;
    for (const TimerNode& child : a.children) {
        if (recorded_by_ringprof(child.name)) continue;
        const TimerNode* other = b.find(child.name);
        ASSERT_NE(other, nullptr) << path << "/" << child.name << " is missing";
        expect_same_shape(child, *other, path + "/" + child.name);
    }
}

std::map<std::string, std::uint64_t> calls_by_row(const Snapshot& s) {
    std::map<std::string, std::uint64_t> rows;
    for (const FunctionStats& f : s.stats) {
        if (!recorded_by_ringprof(f.name)) rows[f.label()] += f.counts.ncalls;
    }
    return rows;
}

TEST(SplitDrain, FourDrainersMakeTheSameTreeStatisticsGaugesAndPerThreadSpanOrderAsOne) {
    const int iterations = testing::kSanitized ? 3000 : 20000;
    const SplitRun one = run_split_workload(1, iterations);
    const SplitRun four = run_split_workload(4, iterations);

    EXPECT_EQ(one.drain_threads, 1);
    EXPECT_GE(four.drain_threads, 2) << "the rings were never read by more than one thread";

    expect_same_shape(one.snapshot.tree.root, four.snapshot.tree.root, "root");
    const TimerNode* iteration = four.snapshot.tree.root.find("spawn");
    ASSERT_NE(iteration, nullptr);
    iteration = iteration->find("iteration");
    ASSERT_NE(iteration, nullptr) << "the workers did not nest under the scope that started them";
    EXPECT_EQ(iteration->count, static_cast<std::uint64_t>(kSplitWorkers) * iterations);
    EXPECT_TRUE(iteration->is_parallel);

    EXPECT_EQ(calls_by_row(one.snapshot), calls_by_row(four.snapshot));
    std::uint64_t signed_calls = 0;
    for (const FunctionStats& f : four.snapshot.stats) {
        if (f.name == "split_signed") {
            EXPECT_FALSE(f.signature.empty());
            signed_calls += f.counts.ncalls;
        }
    }
    EXPECT_EQ(signed_calls, static_cast<std::uint64_t>(kSplitWorkers) * iterations);

    ASSERT_EQ(one.snapshot.tree.gauges.size(), 1u);
    ASSERT_EQ(four.snapshot.tree.gauges.size(), 1u);
    const Gauge& g1 = one.snapshot.tree.gauges[0].second;
    const Gauge& g4 = four.snapshot.tree.gauges[0].second;
    EXPECT_EQ(g1.count, g4.count);
    EXPECT_EQ(g1.min, g4.min);
    EXPECT_EQ(g1.max, g4.max);

    EXPECT_EQ(one.snapshot.dropped + four.snapshot.dropped, 0u);
    EXPECT_EQ(one.timeline_dropped + four.timeline_dropped, 0u);
    ASSERT_EQ(four.spans.size(), static_cast<std::size_t>(kSplitWorkers) + 1);  // and the main thread
    for (const auto& [thread, spans] : one.spans) {
        const auto other = four.spans.find(thread);
        ASSERT_NE(other, four.spans.end()) << thread;
        ASSERT_EQ(spans.size(), other->second.size()) << thread;
        EXPECT_TRUE(spans == other->second) << thread << "'s spans came in another order";
    }
}

}  // namespace
}  // namespace ringprof
