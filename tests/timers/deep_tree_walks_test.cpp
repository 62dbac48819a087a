// A timer tree a program builds by hand may be far deeper than any ringprof builds
// (kMaxTreeDepth): merging and freeing it must not recurse once per level, or a thread's stack
// overflows (100,000 levels took about 10 MB of it).
#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>

#include "bounded_process.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/timer_tree.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"

namespace ringprof::testing {
namespace {

constexpr long kHandBuiltLevels = 100000;

TimerNode chain_of(long levels, const char* name) {
    TimerNode root("root");
    TimerNode* at = &root;
    for (long i = 0; i < levels; ++i) {
        at = &at->child(name);
        at->total = 1.0;
        at->count = 1;
    }
    return root;
}

long levels_of(const TimerNode& root) {
    long levels = 0;
    for (const TimerNode* n = &root; !n->children.empty(); n = &n->children.back()) ++levels;
    return levels;
}

// Runs `body` on a thread with a 256 KiB stack (2 MiB under sanitizers), in a child process: an
// overflow fails the test instead of ending the test program.
template <class Body>
int on_a_small_stack(Body body) {
    static Body* run = nullptr;
    run = &body;
    const Outcome o = run_bounded([] {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, kSanitized ? (2u << 20) : (256u << 10));
        pthread_t thread;
        int code = 0;
        if (pthread_create(
                &thread, &attr,
                +[](void* result) -> void* {
                    *static_cast<int*>(result) = (*run)();
                    return nullptr;
                },
                &code) != 0) {
            return 97;
        }
        pthread_join(thread, nullptr);
        return code;
    }, within(std::chrono::seconds(120)));
    if (!o.finished) return -2;
    return o.signal != 0 ? -o.signal : o.exit_code;
}

TEST(DeepTreeWalks, AHundredThousandLevelTreeBuiltByHandIsMergedAndFreedOnASmallStack) {
    const int code = on_a_small_stack([] {
        TimerNode into = chain_of(kHandBuiltLevels, "level");
        {
            const TimerNode other = chain_of(kHandBuiltLevels, "level");
            into.merge(other, /*parallel=*/true);
        }  // `other` freed here
        if (levels_of(into) != kHandBuiltLevels) return 1;
        const TimerNode* deepest = &into;
        while (!deepest->children.empty()) deepest = &deepest->children.back();
        if (deepest->count != 2 || !deepest->is_parallel) return 2;
        TimerTree tree;
        tree.merge(TimerTree{std::move(into), {}, {}}, "graft/here", false);  // folded to kMaxTreeDepth
        long kept = levels_of(tree.root);
        return kept == static_cast<long>(kMaxTreeDepth) ? 0 : 3;
    });
    EXPECT_EQ(code, 0) << "negative: killed by that signal";
}

// Every writer and flame graph takes such a tree and keeps kMaxTreeDepth levels of it, as every
// tree ringprof builds does; what they write reads back.
TEST(DeepTreeWalks, AHundredThousandLevelTreeBuiltByHandIsWrittenAndDrawnWithItsKeptLevels) {
    const int code = on_a_small_stack([] {
        TimerTree tree;
        tree.root = chain_of(kHandBuiltLevels, "level");
        const TimerTree back = parse_timers_json(write_timers_json(tree, TimersFormat::List), "written");
        if (levels_of(back.root) != static_cast<long>(kMaxTreeDepth)) return 1;
        const std::string folded = render_folded(tree.root);
        if (folded.empty() || folded.find("level") == std::string::npos) return 2;
        const std::string svg = render_svg(tree.root);
        if (svg.find("<svg") == std::string::npos) return 3;
        const FlameProfile profile = flame_profile(tree, "deep");
        if (levels_of(profile.merged) != static_cast<long>(kMaxTreeDepth)) return 4;
        return 0;
    });
    EXPECT_EQ(code, 0) << "negative: killed by that signal";
}

}  // namespace
}  // namespace ringprof::testing
