// Misuse a task system makes easy: a scope opened on one thread and ended on another. The
// marker cannot tell (it has no instruction to spare); the drainer finds the ends out of order
// where it decodes them, closes what they close, counts them and says so, and the outputs stay
// readable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "env_session.hpp"
#include "handoff_queue.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timer_tree_reading.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

constexpr Site kMoved{"moved_to_a_task", "", "", 0};

TEST(Misuse, ScopesEndedOnAnotherThreadAreCountedAndReportedAndTheOutputsStayWhole) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "moved", "timers,trace");
            ScopeCourier handoff([] { PROF_SCOPE("worker_own"); });  // the worker's own scope before each end
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
    EXPECT_EQ(std::atol(metadata_value(tree, "scopes_ended_on_another_thread").c_str()), moved);
    // The opening thread's decode finds its moved scopes open under its next `outer` end.
    EXPECT_GT(std::atoll(metadata_value(tree, "misnested_scopes").c_str()), 0);
    ASSERT_NE(tree.root.find("outer"), nullptr);
    EXPECT_EQ(tree.root.find("outer")->count, static_cast<std::uint64_t>(moved));
    const std::string text = read_text(err);
    EXPECT_NE(text.find("scopes_ended_on_another_thread"), std::string::npos) << text;
    EXPECT_NE(text.find("misnested_scopes"), std::string::npos) << text;
}

}  // namespace
}  // namespace ringprof::testing
