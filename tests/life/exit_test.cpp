// Process exit never hangs, whatever other threads do with the API: calls racing with the
// session's end complete or do nothing, calls after it are no-ops, and flush() from inside a
// backend neither deadlocks nor recurses.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof::testing {
namespace {

// main returns (exit) while a detached thread keeps calling `call` in a loop.
template <typename Call>
void expect_exit_while_a_thread_loops(Call call) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        set_env("RINGPROF_OUTPUT_DIR", dir.str());
        set_env("RINGPROF_RUN_ID", "racing");
        static std::atomic<int> rounds{0};
        std::thread([call] {
            for (;;) {
                {
                    PROF_SCOPE("x");
                    call();
                }
                rounds.fetch_add(1);
            }
        }).detach();
        // The first round starts the default session (slow under a sanitizer on a loaded
        // machine): exit only once the race is on and a scope has ended.
        while (rounds.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return 0;
    });
    ASSERT_TRUE(o.finished) << "exit hung while another thread used the API";
    EXPECT_EQ(o.exit_code, 0);
    const TimerTree tree = load_timers_json(dir.str() + "/racing_timers.json");
    ASSERT_NE(tree.root.find("x"), nullptr) << "the final snapshot is written";
    EXPECT_GT(tree.root.find("x")->count, 0u);
}

TEST(Exit, DoesNotHangWhileAnotherThreadLoopsOnFlush) {
    expect_exit_while_a_thread_loops([] { ringprof::flush(); });
}

TEST(Exit, DoesNotHangWhileAnotherThreadLoopsOnDroppedScopes) {
    expect_exit_while_a_thread_loops([] { static_cast<void>(ringprof::dropped_scopes()); });
}

TEST(Exit, DoesNotHangWhileAnotherThreadLoopsOnAddMetadata) {
    expect_exit_while_a_thread_loops([] { ringprof::add_metadata("k", "v"); });
}

// A Profile made on the default session (which the exit handler ends) holds no pointer to it:
// its calls racing with the exit complete, or do nothing once the session has ended.
TEST(Exit, AProfileOnTheDefaultSessionNeitherCrashesNorHangsWhenTheProcessExits) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        set_env("RINGPROF_OUTPUT_DIR", dir.str());
        set_env("RINGPROF_RUN_ID", "racing");
        static std::atomic<int> rounds{0};
        std::thread([] {
            Profile* profile = nullptr;  // never destroyed: the thread outlives main
            for (;;) {
                PROF_SCOPE("x");
                if (profile == nullptr) profile = new Profile();  // on the default session
                static_cast<void>(profile->stats());
                profile->clear();
                static_cast<void>(profile->getstats());
                rounds.fetch_add(1);
            }
        }).detach();
        // The first round starts the default session: exit only once the race is on.
        while (rounds.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return 0;
    });
    ASSERT_TRUE(o.finished) << "exit hung while a Profile was in use";
    EXPECT_EQ(o.signal, 0) << "a Profile call racing with exit crashed";
    EXPECT_EQ(o.exit_code, 0);
    const TimerTree tree = load_timers_json(dir.str() + "/racing_timers.json");
    ASSERT_NE(tree.root.find("x"), nullptr) << "the final snapshot is written";
    EXPECT_GE(tree.root.find("x")->count, 3u);
}

TEST(Exit, AProfileWhoseSessionHasEndedReturnsNothingAndNeverTouchesIt) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        Config c = ringprof::testing::timers_only(dir, "ended");
        auto session = std::make_unique<Session>(c);
        Profile profile;  // on the running session, which it did not start
        { PROF_SCOPE("before_the_end"); }
        if (profile.stats().empty()) return 4;  // the probe works while the session runs
        session.reset();
        profile.clear();
        return profile.stats().empty() && profile.getstats().empty() ? 0 : 5;
    });
    ASSERT_TRUE(o.finished) << "a call on an ended session hung";
    EXPECT_EQ(o.signal, 0) << "a call on an ended session crashed";
    EXPECT_EQ(o.exit_code, 0);
}

TEST(Exit, ExplicitSessionEndingWhileOtherThreadsFlushDoesNotHang) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        for (int round = 0; round < 20; ++round) {
            Config c = ringprof::testing::timers_only(dir, "explicit");
            std::atomic<bool> stop{false};
            std::thread racer;
            {
                Session session(c);
                racer = std::thread([&] {
                    while (!stop.load()) {
                        PROF_SCOPE("y");
                        ringprof::flush();
                        static_cast<void>(ringprof::dropped_scopes());
                    }
                });
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }  // ends while the racer is inside flush() or about to be
            stop.store(true);
            racer.join();
        }
        return 0;
    });
    ASSERT_TRUE(o.finished) << "ending a session hung while another thread flushed";
    EXPECT_EQ(o.exit_code, 0);
}

// Runs after ringprof's own exit handler (registered later, so run earlier: atexit is LIFO).
void use_the_api_after_shutdown() {
    ringprof::flush();
    ringprof::add_metadata("after_exit", "1");
    ringprof::enable();
    { PROF_SCOPE("after_exit"); }
    if (ringprof::dropped_scopes() != 0) std::_Exit(3);
}

TEST(Exit, ApiCallsAfterTheSessionsEndAreNoOps) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        set_env("RINGPROF_OUTPUT_DIR", dir.str());
        set_env("RINGPROF_RUN_ID", "ended");
        std::atexit(use_the_api_after_shutdown);
        { PROF_SCOPE("before_exit"); }
        return 0;
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0);
    const TimerTree tree = load_timers_json(dir.str() + "/ended_timers.json");
    EXPECT_NE(tree.root.find("before_exit"), nullptr);
    EXPECT_EQ(tree.root.find("after_exit"), nullptr) << "no session starts again after exit";
    int timers_files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
        const std::string name = e.path().filename().string();
        timers_files += name.find("_timers.json") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(timers_files, 1);
}

// Calls the API from its callbacks, on the writer thread (spans) and the drainer (snapshots).
class ReentrantBackend : public Backend {
public:
    explicit ReentrantBackend(std::atomic<int>* calls) : calls_(calls) {}
    const char* name() const override { return "reentrant"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch&) override {
        ringprof::flush();
        static_cast<void>(ringprof::dropped_scopes());
        calls_[0].fetch_add(1);
    }
    void on_snapshot(const Snapshot&) override {
        ringprof::flush();
        static_cast<void>(ringprof::dropped_scopes());
        calls_[1].fetch_add(1);
    }

private:
    std::atomic<int>* calls_;
};

TEST(Exit, FlushFromInsideABackendNeitherDeadlocksNorRecurses) {
    TempDir dir;
    const Outcome o = run_bounded([&] {
        std::atomic<int> calls[2] = {{0}, {0}};
        {
            Config c = ringprof::testing::timers_only(dir, "reentrant");
            Session session(c);
            session.add_backend(std::make_unique<ReentrantBackend>(calls));
            for (int i = 0; i < 100; ++i) {
                PROF_SCOPE("z");
            }
            session.flush();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            session.flush();
        }
        // Two flushes and the final snapshot: exactly three snapshots, so no flush recursed.
        return calls[0].load() > 0 && calls[1].load() == 3 ? 0 : 4;
    });
    ASSERT_TRUE(o.finished) << "flush() from a backend deadlocked";
    EXPECT_EQ(o.exit_code, 0) << "the callbacks did not run, or a flush from one recursed";
}

}  // namespace
}  // namespace ringprof::testing
