// Scopes that close elsewhere than where they opened: a task system (or a coroutine resumed on
// another thread) ends a scope on a thread that did not open it. The opener's tree stays
// correct: each such scope is closed where it was opened, at the time it ended, and the opener's
// later scopes nest where they ran instead of below a scope left open for good.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
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

// A scope held elsewhere after its thread exited. `open` runs on a thread of its own: it opens
// the held scope (and may end scopes around it), and the thread exits; its ring is read to its
// end. A thread started later then opens its own scope of the same site and holds it while the
// held scope ends here, and that end is read before the later thread's own scope ends: a ring
// handed on too soon would have the held scope's end close the later thread's scope.
template <class Open>
void end_a_held_scope_while_a_later_thread_holds_its_site(Open open) {
    std::unique_ptr<detail::Scope> held;
    std::thread opener([&] { open(held); });
    opener.join();
    ringprof::flush();  // the opener's ring is read to its end
    std::mutex m;
    std::condition_variable cv;
    int stage = 0;
    std::thread later([&] {
        detail::Scope own(&kHandedOver);  // open while the held one ends
        std::unique_lock<std::mutex> lock(m);
        stage = 1;
        cv.notify_all();
        cv.wait(lock, [&] { return stage == 2; });
    });
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return stage == 1; });
    }
    held.reset();  // ends the opener's scope here
    ringprof::flush();
    {
        std::lock_guard<std::mutex> lock(m);
        stage = 2;
        cv.notify_all();
    }
    later.join();
}

// No scope around the handed-over ones: before, each stayed open on the opener, the next nested
// below it, and the tree grew one level per hand-over until the drainer's fold overflowed.
TEST(ClosedElsewhere, ScopesEndedOnAnotherThreadAreClosedAtTheOpenersRootAndLaterScopesStayThere) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    constexpr long kHandOvers = 20000;
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "elsewhere");
            set_env("RINGPROF_BACKENDS", "timers,trace");
            // 4,096 events: the hand-overs are five times the ring, so room kept for Ends that
            // never come here would leave none for the opener's later scopes. At most 256 wait
            // on the worker at once: a worker that falls far behind (a loaded machine) would
            // hold more scopes open than a ring of this size can keep Ends for.
            set_env("RINGPROF_RING_BYTES", "65536");
            ScopeCourier courier([] {}, 256);
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
    EXPECT_EQ(metadata_value(tree, "dropped_scopes"), "0");
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

// The opener exits while the worker still holds its scope. Its ring must not go to a thread
// started later: the worker's end, noted by the ring's address, would then close that thread's
// own scope of the same site. The held scope is closed in its opener's tree when it ends.
TEST(ClosedElsewhere, AScopeHeldElsewhereAfterItsThreadExitedClosesInThatThreadsTreeOnly) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "exited");
            set_env("RINGPROF_BACKENDS", "timers");
            end_a_held_scope_while_a_later_thread_holds_its_site(
                [](std::unique_ptr<detail::Scope>& held) { held = std::make_unique<detail::Scope>(&kHandedOver); });
            return 0;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);
    const TimerTree tree = load_timers_json(dir.str() + "/exited_timers.json");
    const TimerNode* handed = tree.root.find("handed_over");
    ASSERT_NE(handed, nullptr);
    EXPECT_EQ(handed->count, 2u) << "the held scope and the later thread's own";
    EXPECT_EQ(metadata_value(tree, "misnested_scopes"), "1") << "only the held scope ended out of nesting";
}

// The opener ended a scope around the held one (which closes the held one in its tree, counted)
// and exited: its tree has nothing open, so it goes at once. Its ring still must not go to a
// later thread before the held scope ends: that end, noted by the ring's address, would close the
// later thread's own scope of the same site, and give back room that thread kept for its own End.
TEST(ClosedElsewhere, ARingIsNotReusedWhileAScopeOfItsExitedThreadIsHeldElsewhere) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "reuse");
            set_env("RINGPROF_BACKENDS", "timers");
            end_a_held_scope_while_a_later_thread_holds_its_site([](std::unique_ptr<detail::Scope>& held) {
                PROF_SCOPE("around");
                held = std::make_unique<detail::Scope>(&kHandedOver);
            });
            return 0;
        },
        stderr_to(err, 120s));
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);
    const TimerTree tree = load_timers_json(dir.str() + "/reuse_timers.json");
    const TimerNode* handed = tree.root.find("handed_over");
    ASSERT_NE(handed, nullptr) << "the later thread's own scope, at its root";
    EXPECT_EQ(handed->count, 1u);
    const TimerNode* around = tree.root.find("around");
    ASSERT_NE(around, nullptr);
    const TimerNode* inside = around->find("handed_over");
    ASSERT_NE(inside, nullptr) << "the held scope, closed with the scope around it";
    EXPECT_EQ(inside->count, 1u);
    EXPECT_EQ(metadata_value(tree, "misnested_scopes"), "1") << "the held scope alone";
}

}  // namespace
}  // namespace ringprof::testing
