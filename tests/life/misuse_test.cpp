// Misuse a task system makes easy: a scope opened on one thread and ended on another. The
// marker cannot tell (it has no instruction to spare); the drainer finds the ends out of order
// where it decodes them, closes what they close, counts them and says so, and the outputs stay
// readable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

std::string metadata(const TimerTree& tree, const std::string& key) {
    for (const auto& [k, v] : tree.metadata) {
        if (k == key) return v;
    }
    return "";
}

constexpr Site kMoved{"moved_to_a_task", "", "", 0};

// Scopes handed from the opening thread to a worker that ends them.
class Handoff {
public:
    void push(std::unique_ptr<detail::Scope> s) {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(s));
        ready_.notify_one();
    }
    // Ends every scope handed over until told to stop.
    void serve() {
        for (;;) {
            std::unique_ptr<detail::Scope> s;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [&] { return !queue_.empty() || done_; });
                if (queue_.empty()) return;
                s = std::move(queue_.front());
                queue_.pop_front();
            }
            { PROF_SCOPE("worker_own"); }
            s.reset();  // ends the scope here, on the worker
        }
    }
    void stop() {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
        ready_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::unique_ptr<detail::Scope>> queue_;
    bool done_ = false;
};

TEST(Misuse, ScopesEndedOnAnotherThreadAreCountedAndReportedAndTheOutputsStayWhole) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "moved");
            set_env("RINGPROF_BACKENDS", "timers,trace");
            Handoff handoff;
            std::thread worker([&] { handoff.serve(); });
            const auto until = std::chrono::steady_clock::now() + 300ms;
            long moved = 0;
            while (std::chrono::steady_clock::now() < until) {
                PROF_SCOPE("outer");
                handoff.push(std::make_unique<detail::Scope>(&kMoved));
                ++moved;
                for (int i = 0; i < 100; ++i) {
                    PROF_SCOPE("own");
                }
            }
            handoff.stop();
            worker.join();
            std::FILE* count = std::fopen((dir.str() + "/moved_count.txt").c_str(), "w");
            std::fprintf(count, "%ld", moved);
            std::fclose(count);
            return 0;
        },
        stderr_to(err, 30s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);
    const TimerTree tree = load_timers_json(dir.str() + "/moved_timers.json");
    // Every end made on the worker is refused there, none written into the opening thread's ring.
    const long moved = std::atol(read_text(dir.str() + "/moved_count.txt").c_str());
    ASSERT_GT(moved, 0);
    EXPECT_EQ(std::atol(metadata(tree, "scopes_ended_on_another_thread").c_str()), moved);
    // The opening thread's decode finds its moved scopes open under its next `outer` end.
    EXPECT_GT(std::atoll(metadata(tree, "misnested_scopes").c_str()), 0);
    ASSERT_NE(tree.root.find("outer"), nullptr);
    EXPECT_EQ(tree.root.find("outer")->count, static_cast<std::uint64_t>(moved));
    const std::string text = read_text(err);
    EXPECT_NE(text.find("scopes_ended_on_another_thread"), std::string::npos) << text;
    EXPECT_NE(text.find("misnested_scopes"), std::string::npos) << text;
}

}  // namespace
}  // namespace ringprof::testing
