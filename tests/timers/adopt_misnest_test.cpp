// An adopted context that ends while a scope opened inside it is still open (AdoptContext left
// before the scope) is a misnesting: counted in misnested_scopes, and the thread's later scopes
// nest where they run, not under the context any longer.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

TEST(AdoptMisnest, AContextEndedUnderAnOpenScopeIsCountedAndLaterScopesLeaveIt) {
    testing::TempDir dir;
    Session session(ringprof::testing::timers_only(dir, "adopt_misnest"));
    {
        PROF_SCOPE("spawner");
        const Context ctx = capture_context();
        std::thread([ctx] {
            auto adopt = std::make_unique<AdoptContext>(ctx);
            {
                PROF_SCOPE("inside");
                adopt.reset();  // the context ends first: its AdoptEnd meets "inside", not the context
            }
            for (int i = 0; i < 3; ++i) {
                PROF_SCOPE("after");
            }
        }).join();
    }
    const Snapshot s = session.snapshot();
    const TimerNode* inside = s.tree.root.find_path("spawner/inside");
    ASSERT_NE(inside, nullptr) << "the scope opened under the context stays there";
    EXPECT_EQ(inside->count, 1u);
    EXPECT_EQ(s.tree.root.find_path("spawner/after"), nullptr) << "later scopes still under the ended context";
    const TimerNode* after = s.tree.root.find("after");
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(after->count, 3u);
    const std::string* misnested = s.tree.find_metadata("misnested_scopes");
    ASSERT_NE(misnested, nullptr);
    EXPECT_NE(*misnested, "0");
}

}  // namespace
}  // namespace ringprof
