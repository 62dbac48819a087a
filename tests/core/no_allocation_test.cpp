// The hot path never allocates: count every operator new on the recording thread. And the API
// that says it never throws does not, even when memory runs out (operator new can be made to
// refuse on this thread).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>

#include <unistd.h>

#include "record/ring_room.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace {
thread_local std::uint64_t t_allocations = 0;
thread_local bool t_refuse_allocations = false;  // operator new throws bad_alloc, as out of memory
}  // namespace

// None of these is inlined: GCC pairs a `new` expression with operator delete, and once a body
// is inlined into a caller it sees malloc'd memory released by operator delete, or memory from
// operator new released by free() (-Wmismatched-new-delete). Out of line, callers see new/delete
// as written, and the malloc/free pair stays inside these functions.
__attribute__((noinline)) void* operator new(std::size_t n) {
    ++t_allocations;
    if (t_refuse_allocations) throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new[](std::size_t n) {
    ++t_allocations;
    if (t_refuse_allocations) throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    ++t_allocations;
    return std::malloc(n == 0 ? 1 : n);
}
__attribute__((noinline)) void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    ++t_allocations;
    return std::malloc(n == 0 ? 1 : n);
}
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace ringprof {
namespace {

void leaf() { PROF_FUNCTION(); }

TEST(HotPath, MillionScopesAllocateNothingAfterWarmUp) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "alloc");
    Session session(c);
    {
        PROF_SCOPE("warm_up");
        leaf();
    }  // registers this thread's ring (the slow path)
    const std::uint64_t before = t_allocations;
    const long n = testing::scaled(1'000'000);
    for (long i = 0; i < n; ++i) {
        PROF_SCOPE("hot");
        leaf();
    }
    const std::uint64_t during = t_allocations - before;
    EXPECT_EQ(during, 0u);
    const Snapshot s = session.snapshot();
    ASSERT_NE(s.tree.root.find("hot"), nullptr);
    const TimerNode* hot = s.tree.root.find("hot");
    const std::uint64_t leaves = hot->find("leaf") != nullptr ? hot->find("leaf")->count : 0;
    EXPECT_EQ(hot->count + leaves + s.dropped, static_cast<std::uint64_t>(2 * n));
}

// A thread that finds no segment ready maps its next one itself: still no heap allocation.
TEST(HotPath, AThreadGrowingItsOwnRingAllocatesNothing) {
    testing::TempDir dir;
    detail::prepare_segments_ahead(false);
    Config c = ringprof::testing::timers_only(dir, "grow_alloc");
    Session session(c);
    std::uint64_t during = 0;
    const long n = testing::scaled(100'000);  // 200,000 events: past the first segment and the next
    std::thread grower([&] {
        { PROF_SCOPE("warm_up"); }  // registers this thread's ring (the slow path)
        const std::uint64_t before = t_allocations;
        PROF_SCOPE("outer");
        for (long i = 0; i < n; ++i) {
            PROF_SCOPE("hot");
        }
        during = t_allocations - before;
    });
    grower.join();
    const Snapshot s = session.snapshot();
    detail::prepare_segments_ahead(true);
    EXPECT_GE(s.growths, 1u) << "the thread grew its ring itself";
    EXPECT_EQ(during, 0u);
    ASSERT_NE(s.tree.root.find("outer"), nullptr);
    ASSERT_NE(s.tree.root.find("outer")->find("hot"), nullptr);
    EXPECT_EQ(s.tree.root.find("outer")->find("hot")->count, static_cast<std::uint64_t>(n));
}

TEST(Api, SetThreadNameNeverThrowsWhenMemoryRunsOutAndTheThreadKeepsItsName) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "names");
    Session session(c);
    set_thread_name("before");
    { PROF_SCOPE("named"); }
    ::testing::internal::CaptureStderr();
    t_refuse_allocations = true;
    static_assert(noexcept(set_thread_name("")), "set_thread_name promises not to throw");
    set_thread_name("a name long enough to need the heap, past any small-string buffer");
    t_refuse_allocations = false;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("ringprof: set_thread_name:"), std::string::npos) << err;
    const std::uint32_t me = static_cast<std::uint32_t>(::gettid());
    bool found = false;
    for (const ThreadInfo& t : thread_drops()) {
        if (t.tid != me) continue;
        found = true;
        EXPECT_EQ(t.name, "before");
    }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ringprof
