// Every refused scope is counted once, while its thread lives and after it exits. Nesting deeper
// than the ring holds makes refusals certain whatever the drainer does: a Begin needs room for
// the Ends of every open scope, so a 64-event ring can never hold more than 63 nested scopes.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

#include "nested_levels.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

constexpr int kLevels = 100;
constexpr int kDescents = 3;
constexpr std::uint64_t kRingEvents = 64;

std::uint64_t recorded_levels(const TimerNode& root) {
    std::uint64_t n = 0;
    for (const TimerNode* node = root.find("level"); node != nullptr; node = node->find("level")) n += node->count;
    return n;
}

TEST(DropAccounting, RefusedScopesAreCountedWhileTheThreadLivesAndAfterItExits) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "drops");
    c.ring_bytes = kRingEvents * 16;
    Session session(c);
    std::uint64_t seen_by_thread = 0, total_while_alive = 0;
    std::thread deep([&] {
        set_thread_name("deep");
        for (int i = 0; i < kDescents; ++i) ringprof::testing::nest_levels(kLevels);
        for (const ThreadInfo& t : thread_drops()) {
            if (t.name == "deep") seen_by_thread = t.dropped;
        }
        total_while_alive = dropped_scopes();
    });
    deep.join();
    const std::uint64_t issued = std::uint64_t{kLevels} * kDescents;
    const std::uint64_t at_least = (kLevels - (kRingEvents - 1)) * std::uint64_t{kDescents};
    EXPECT_GE(seen_by_thread, at_least);
    EXPECT_EQ(total_while_alive, seen_by_thread);
    const Snapshot s = session.snapshot();  // the thread's ring is retired by now
    EXPECT_EQ(s.dropped, seen_by_thread) << "drops of an exited thread must stay counted";
    EXPECT_EQ(recorded_levels(s.tree.root) + s.dropped, issued);
    EXPECT_EQ(dropped_scopes(), seen_by_thread);
}

}  // namespace
}  // namespace ringprof
