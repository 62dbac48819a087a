// capture_context() records where the calling thread is, so that other threads' scopes nest
// there; current_context(), its first name, does the same.
#include <gtest/gtest.h>

#include <thread>

#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

Config contexts_config(const testing::TempDir& dir) {
    Config c = ringprof::testing::timers_only(dir, "contexts");
    return c;
}

void adopt_on_another_thread(Context ctx, int scopes) {
    std::thread([ctx, scopes] {
        AdoptContext adopt(ctx);
        for (int i = 0; i < scopes; ++i) {
            PROF_SCOPE("task");
        }
    }).join();
}

TEST(CaptureContext, AnotherThreadsScopesNestWhereTheContextWasCapturedUnderEitherName) {
    testing::TempDir dir;
    Session session(contexts_config(dir));
    {
        PROF_SCOPE("captured");
        adopt_on_another_thread(capture_context(), 3);
    }
    {
        PROF_SCOPE("old_name");
        adopt_on_another_thread(current_context(), 4);
    }
    const Snapshot s = session.snapshot();
    const TimerNode* captured = s.tree.root.find_path("captured/task");
    ASSERT_NE(captured, nullptr);
    EXPECT_EQ(captured->count, 3u);
    const TimerNode* old_name = s.tree.root.find_path("old_name/task");
    ASSERT_NE(old_name, nullptr);
    EXPECT_EQ(old_name->count, 4u);
    EXPECT_EQ(s.tree.root.find("task"), nullptr);
}

TEST(CaptureContext, CapturingRecordsAnEventSoWhileRecordingIsOffItGivesTheRoot) {
    testing::TempDir dir;
    Session session(contexts_config(dir));
    disable();
    const Context off = capture_context();
    const Context off_old_name = current_context();
    enable();
    const Context on = capture_context();
    EXPECT_EQ(off.id, 0u) << "nothing could be recorded: the root";
    EXPECT_EQ(off_old_name.id, 0u);
    EXPECT_NE(on.id, 0u);
}

}  // namespace
}  // namespace ringprof
