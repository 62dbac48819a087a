// The scenarios behind ML-Agents' reference timer files, rebuilt with ringprof: structure, counts
// and flags must match exactly (times are real, so only their relations are checked).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

Config test_config(const testing::TempDir& dir, const char* run_id) {
    Config c;
    c.output_dir = dir.str();
    c.run_id = run_id;
    c.backends = {"timers"};
    return c;
}

void decorated_func() { PROF_FUNCTION(); }

void raises() {
    PROF_FUNCTION();
    throw std::runtime_error("raised inside a timer");
}

TEST(MlAgentsScenario, NestedTimersAGaugeAndAScopeThatThrows) {
    testing::TempDir dir;
    Session session(test_config(dir, "scenario_a"));
    {
        PROF_SCOPE("top_level");
        for (int i = 0; i < 3; ++i) {
            PROF_SCOPE("multiple");
            decorated_func();
        }
        try {
            raises();
        } catch (const std::runtime_error&) {
        }
        { PROF_SCOPE("post_raise"); }
    }
    PROF_GAUGE("my_gauge", 4.0);
    PROF_GAUGE("my_gauge", 0.0);
    PROF_GAUGE("my_gauge", std::nan(""));
    PROF_GAUGE("my_gauge", 4.0);
    session.flush();

    const TimerTree t = load_timers_json(dir.str() + "/scenario_a_timers.json");
    const TimerNode* top = t.root.find("top_level");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->count, 1u);
    ASSERT_EQ(top->children.size(), 3u);
    EXPECT_EQ(top->children[0].name, "multiple");
    EXPECT_EQ(top->children[1].name, "raises");
    EXPECT_EQ(top->children[2].name, "post_raise");
    EXPECT_EQ(top->children[0].count, 3u);
    EXPECT_EQ(top->children[0].find("decorated_func")->count, 3u);
    EXPECT_EQ(top->children[1].count, 1u);
    EXPECT_EQ(top->children[2].count, 1u);
    EXPECT_FALSE(top->is_parallel);
    EXPECT_GE(t.root.total, top->total);
    ASSERT_EQ(t.gauges.size(), 1u);
    const Gauge& g = t.gauges[0].second;
    EXPECT_EQ(g.value, 4.0);
    EXPECT_EQ(g.min, 0.0);
    EXPECT_EQ(g.max, 4.0);
    EXPECT_EQ(g.count, 3u);
}

TEST(MlAgentsScenario, WorkerThreadsAdoptTheSpawningScope) {
    testing::TempDir dir;
    Session session(test_config(dir, "contexts"));
    {
        PROF_SCOPE("collect");
        const Context ctx = current_context();
        std::vector<std::thread> workers;
        for (int w = 0; w < 3; ++w) {
            workers.emplace_back([ctx] {
                AdoptContext adopt(ctx);
                for (int i = 0; i < 5; ++i) {
                    PROF_SCOPE("env_step");
                }
            });
        }
        for (auto& w : workers) w.join();
    }
    std::thread([] { PROF_SCOPE("unadopted"); }).join();
    const Snapshot s = session.snapshot();
    const TimerNode* collect = s.tree.root.find("collect");
    ASSERT_NE(collect, nullptr);
    EXPECT_FALSE(collect->is_parallel);
    EXPECT_EQ(collect->count, 1u);
    const TimerNode* env = collect->find("env_step");
    ASSERT_NE(env, nullptr) << "worker scopes must nest under the spawning scope";
    EXPECT_EQ(env->count, 15u);
    EXPECT_TRUE(env->is_parallel);
    EXPECT_EQ(s.tree.root.find("env_step"), nullptr);
    ASSERT_NE(s.tree.root.find("unadopted"), nullptr);
}

TEST(MlAgentsScenario, ThreadPoolTasksCarryTheirContext) {
    testing::TempDir dir;
    Session session(test_config(dir, "pool"));
    std::vector<Context> tasks;
    {
        PROF_SCOPE("phase_a");
        tasks.push_back(current_context());
    }
    {
        PROF_SCOPE("phase_b");
        tasks.push_back(current_context());
    }
    std::thread pool_thread([&] {
        for (int round = 0; round < 4; ++round) {
            for (const Context& c : tasks) {
                AdoptContext adopt(c);
                PROF_SCOPE("task");
            }
        }
    });
    pool_thread.join();
    const Snapshot s = session.snapshot();
    ASSERT_NE(s.tree.root.find_path("phase_a/task"), nullptr);
    ASSERT_NE(s.tree.root.find_path("phase_b/task"), nullptr);
    EXPECT_EQ(s.tree.root.find_path("phase_a/task")->count, 4u);
    EXPECT_EQ(s.tree.root.find_path("phase_b/task")->count, 4u);
}

void worker_process_body(int write_fd, int sends) {
    for (int send = 0; send < sends; ++send) {
        for (int i = 0; i < 2; ++i) {
            PROF_SCOPE("UnityEnvironment.step");
            PROF_SCOPE("communicator.exchange");
        }
        PROF_GAUGE("worker_reward", 1.0 + send);
        if (!send_worker_tree(write_fd)) std::_Exit(3);
    }
}

// ThreadSanitizer keeps the parent's threads in its registry after fork, so a forked child that
// starts a thread (its own drainer) dies with "dup thread with used id" (exit 66), whatever
// die_after_fork says. Under TSan each worker is therefore a fresh copy of this program (fork +
// exec) that runs worker_process_body from a test environment: the send/receive/graft path is
// still checked across real processes, and the fork handling itself by the other builds.
// AddressSanitizer's allocator (clang 14's) is not fork-safe either: a child that allocates can
// block forever on a lock another thread held at the fork (seen under ctest -j2, 60 s then killed).
constexpr bool kExecWorkers = ringprof::testing::kThreadSanitizer || ringprof::testing::kAddressSanitizer;
constexpr const char* kWorkerFdVariable = "RINGPROF_TEST_WORKER_FD";

class ExecWorkerMode : public ::testing::Environment {
public:
    void SetUp() override {
        const char* fd = std::getenv(kWorkerFdVariable);
        if (fd == nullptr) return;
        ::alarm(60);
        // Named as a forked child's files would be: <run_id>_<pid>.
        ::setenv("RINGPROF_RUN_ID", ("parent_" + std::to_string(::getpid())).c_str(), 1);
        worker_process_body(std::atoi(fd), std::atoi(std::getenv("RINGPROF_TEST_WORKER_SENDS")));
        ::close(std::atoi(fd));
        std::exit(0);
    }
};
[[maybe_unused]] ::testing::Environment* const g_exec_worker_mode =
    ::testing::AddGlobalTestEnvironment(new ExecWorkerMode);

// Runs in the forked child under TSan: only async-signal-safe calls between fork and exec.
[[noreturn]] void exec_worker(char* const* argv, char* const* envp) {
    ::execve("/proc/self/exe", argv, envp);
    std::_Exit(127);
}

TEST(MlAgentsScenario, ForkedWorkersSendTreesThatGraftUnderWorkersWorkerRoot) {
    testing::TempDir dir;
    Session session(test_config(dir, "parent"));
    { PROF_SCOPE("before_fork"); }
    constexpr int kWorkers = 2, kSends = 2;
    std::vector<int> read_fds;
    std::vector<pid_t> pids;
    for (int w = 0; w < kWorkers; ++w) {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        // Built before fork: the exec'd worker's arguments and environment.
        std::vector<std::string> env_text{std::string(kWorkerFdVariable) + "=" + std::to_string(fds[1]),
                                          "RINGPROF_TEST_WORKER_SENDS=" + std::to_string(kSends),
                                          "RINGPROF_OUTPUT_DIR=" + dir.str(), "RINGPROF_BACKENDS=timers"};
        for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
        std::vector<char*> envp;
        for (std::string& e : env_text) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::string arg0 = "worker", filter = "--gtest_filter=MlAgentsScenario.BadWorkerTreeMergesNothing";
        char* argv[] = {arg0.data(), filter.data(), nullptr};
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0 && kExecWorkers) exec_worker(argv, envp.data());
        if (pid == 0) {
            ::alarm(60);  // a hung worker dies, so the parent reads end of stream and fails
            ::close(fds[0]);
            worker_process_body(fds[1], kSends);
            ::close(fds[1]);
            std::exit(0);  // normal exit: the child's own session writes its own files
        }
        ::close(fds[1]);
        read_fds.push_back(fds[0]);
        pids.push_back(pid);
    }
    for (int round = 0; round < kSends; ++round) {
        PROF_SCOPE("env_step");
        PROF_SCOPE("workers");
        for (int fd : read_fds) ASSERT_TRUE(receive_worker_tree(fd, "worker_root"));
    }
    for (std::size_t w = 0; w < pids.size(); ++w) {
        int status = 0;
        ::waitpid(pids[w], &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker status " << status;
        EXPECT_FALSE(receive_worker_tree(read_fds[w], "worker_root"));  // end of stream
        ::close(read_fds[w]);
    }
    session.flush();
    const TimerTree t = load_timers_json(dir.str() + "/parent_timers.json");
    const TimerNode* env = t.root.find("env_step");
    ASSERT_NE(env, nullptr);
    EXPECT_EQ(env->count, 2u);
    EXPECT_FALSE(env->is_parallel);
    const TimerNode* workers = env->find("workers");
    ASSERT_NE(workers, nullptr);
    EXPECT_EQ(workers->count, 2u);
    EXPECT_FALSE(workers->is_parallel);
    const TimerNode* root = workers->find("worker_root");
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->count, static_cast<std::uint64_t>(kWorkers * kSends));
    EXPECT_TRUE(root->is_parallel);
    const TimerNode* step = root->find("UnityEnvironment.step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, static_cast<std::uint64_t>(kWorkers * kSends * 2)) << "sends must not repeat data";
    EXPECT_TRUE(step->is_parallel);
    EXPECT_EQ(step->find("communicator.exchange")->count, static_cast<std::uint64_t>(kWorkers * kSends * 2));
    // The parent's data is not duplicated into the children, nor theirs into the parent's root.
    EXPECT_EQ(t.root.find("before_fork")->count, 1u);
    EXPECT_EQ(t.root.find("UnityEnvironment.step"), nullptr);
    ASSERT_EQ(t.gauges.size(), 1u);
    EXPECT_EQ(t.gauges[0].second.count, static_cast<std::uint64_t>(kWorkers * kSends));
    // Each child wrote its own file, named apart from the parent's, without the parent's scopes.
    for (pid_t pid : pids) {
        const std::string child_file = dir.str() + "/parent_" + std::to_string(pid) + "_timers.json";
        const TimerTree c = load_timers_json(child_file);
        EXPECT_EQ(c.root.find("before_fork"), nullptr) << child_file;
    }
}

TEST(MlAgentsScenario, BadWorkerTreeMergesNothing) {
    testing::TempDir dir;
    Session session(test_config(dir, "bad"));
    EXPECT_THROW(merge_worker_tree("{\"name\": \"root\", \"total\": 1.0, \"children\": [", "worker_root"),
                 TimersJsonError);
    const Snapshot s = session.snapshot();
    EXPECT_EQ(s.tree.root.find("worker_root"), nullptr);
}

}  // namespace
}  // namespace ringprof
