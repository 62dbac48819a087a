// Scopes that close elsewhere than where they opened: a task system (or a coroutine resumed on
// another thread) ends a scope on a thread that did not open it. The opener's tree stays
// correct: each such scope is closed where it was opened, at the time it ended, and the opener's
// later scopes nest where they ran instead of below a scope left open for good.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "handoff_queue.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timer_tree_reading.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

constexpr Site kHandedOver{"handed_over", "", "", 0};

// No scope around the handed-over ones: before, each stayed open on the opener, the next nested
// below it, and the tree grew one level per hand-over until the drainer's fold overflowed.
TEST(ClosedElsewhere, ScopesEndedOnAnotherThreadAreClosedAtTheOpenersRootAndLaterScopesStayThere) {
    // A known, open bug: in about 1 run of 10 some of the ends noted on the other thread are not
    // applied (9,782 of 20,000 closed where they opened, the rest counted only as misnested). Run
    // with RINGPROF_RUN_KNOWN_FAILURES=1 until it is fixed (issue 49's note).
    const char* known = std::getenv("RINGPROF_RUN_KNOWN_FAILURES");
    if (known == nullptr || std::string(known) != "1")
        GTEST_SKIP() << "known bug: ends noted elsewhere are sometimes not applied (RINGPROF_RUN_KNOWN_FAILURES=1 runs it)";
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    constexpr long kHandOvers = 20000;
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "elsewhere");
            set_env("RINGPROF_BACKENDS", "timers,trace");
            ScopeCourier courier;
            std::thread worker([&] { courier.serve(); });
            for (long i = 0; i < kHandOvers; ++i) {
                courier.push(std::make_unique<detail::Scope>(&kHandedOver));
                PROF_SCOPE("own");
            }
            courier.stop();
            worker.join();
            { PROF_SCOPE("after"); }  // later than every end made on the worker
            return 0;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);
    const TimerTree tree = load_timers_json(dir.str() + "/elsewhere_timers.json");
    EXPECT_EQ(metadata_value(tree, "scopes_ended_on_another_thread"), std::to_string(kHandOvers));
    const TimerNode* handed = tree.root.find("handed_over");
    ASSERT_NE(handed, nullptr);
    EXPECT_EQ(handed->count, static_cast<std::uint64_t>(kHandOvers)) << "every one closed where it opened";
    EXPECT_EQ(handed->find("handed_over"), nullptr) << "a waiting scope held the next one";
    // `own` ran beside the handed-over scope still open on the worker's queue: below it, or at
    // the root once it ended; nowhere deeper.
    EXPECT_LE(tree_depth(tree.root), 2u);
    const TimerNode* after = tree.root.find("after");
    ASSERT_NE(after, nullptr) << "the opener's later scope is at the root";
    EXPECT_EQ(after->count, 1u);
    EXPECT_EQ(metadata_value(tree, "misnested_scopes"), std::to_string(kHandOvers));
    const std::string text = read_text(err);
    EXPECT_NE(text.find("misnested_scopes"), std::string::npos) << text;
}

}  // namespace
}  // namespace ringprof::testing
