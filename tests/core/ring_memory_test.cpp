// Memory follows what a thread records: idle threads keep a small first segment, a hot thread
// grows without waiting, an oversized setting is capped with a message, and a thread that can
// get no ring at all has its scopes counted as dropped and said so.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "sanitizer_build.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

using namespace std::chrono_literals;
using testing::Outcome;
using testing::run_bounded;
using testing::scaled;
using testing::TempDir;
using testing::timers_only;
using testing::without_exit_handlers;

// A field of /proc/self/status, in KiB.
std::uint64_t status_kib(const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
    }
    return 0;
}

using testing::kSanitized;

TEST(RingMemory, AThousandLiveThreadsRecordingAFewScopesEachCostUnder64MB) {
    if (kSanitized) GTEST_SKIP() << "a sanitizer's shadow memory dominates RSS";
    TempDir dir;
    const Outcome child = run_bounded(
        [&] {
            constexpr int kThreads = 1000;
            Session session(timers_only(dir));
            { PROF_SCOPE("warm_up"); }
            session.flush();
            const std::uint64_t before_kib = status_kib("VmRSS");
            std::atomic<int> recorded{0};
            // The threads block until released: a thousand threads polling a flag every
            // millisecond cost more system time than everything measured here, and under load
            // took the test past its deadline.
            std::promise<void> release;
            const std::shared_future<void> released = release.get_future().share();
            std::vector<std::thread> threads;
            for (int t = 0; t < kThreads; ++t) {
                threads.emplace_back([&] {
                    for (int i = 0; i < 3; ++i) {
                        PROF_SCOPE("a_few");
                    }
                    recorded.fetch_add(1);
                    released.wait();
                });
            }
            while (recorded.load() < kThreads) std::this_thread::sleep_for(1ms);
            session.flush();  // every ring adopted and read
            const std::uint64_t during_kib = status_kib("VmRSS");
            release.set_value();
            for (auto& t : threads) t.join();
            const Snapshot s = session.snapshot();
            const TimerNode* few = s.tree.root.find("a_few");
            const bool exact = few != nullptr && few->count == 3u * kThreads && s.dropped == 0;
            const std::uint64_t threads_kib = during_kib - before_kib;
            std::fprintf(stderr, "1000 threads: %llu KiB of RSS (whole process %llu KiB)\n",
                         static_cast<unsigned long long>(threads_kib), static_cast<unsigned long long>(during_kib));
            if (!exact) return 2;
            return threads_kib < 64u * 1024u ? 0 : 1;
        },
        without_exit_handlers(120s));
    ASSERT_TRUE(child.finished) << "hung";
    EXPECT_EQ(child.exit_code, 0) << "1: over 64 MB, 2: counts not exact";
}

TEST(RingMemory, AHotThreadsBurstOf100000NestedScopesIsExactWithoutWaiting) {
    TempDir dir;
    Session session(timers_only(dir));
    const long pairs = scaled(50'000);  // 100,000 scopes: outer and inner
    std::thread hot([&] {
        for (long i = 0; i < pairs; ++i) {
            PROF_SCOPE("outer");
            PROF_SCOPE("inner");
        }
    });
    hot.join();
    const Snapshot s = session.snapshot();
    const TimerNode* outer = s.tree.root.find("outer");
    ASSERT_NE(outer, nullptr);
    ASSERT_NE(outer->find("inner"), nullptr);
    EXPECT_EQ(outer->count, static_cast<std::uint64_t>(pairs));
    EXPECT_EQ(outer->find("inner")->count, static_cast<std::uint64_t>(pairs));
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_EQ(s.waits, 0u) << "the burst fits the segment the drainer keeps ready";
}

TEST(RingMemory, AnOversizedRingSettingIsCappedWithAMessageAndNothingIsLost) {
    TempDir dir;
    Config c = timers_only(dir);
    c.ring_bytes = static_cast<std::size_t>(99999999999999ull);
    ::testing::internal::CaptureStderr();
    Session session(c);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("RINGPROF_RING_BYTES"), std::string::npos) << err;
    EXPECT_NE(err.find("maximum"), std::string::npos) << err;
    std::thread t([] {
        for (int i = 0; i < 1000; ++i) {
            PROF_SCOPE("kept");
        }
    });
    t.join();
    const Snapshot s = session.snapshot();
    ASSERT_NE(s.tree.root.find("kept"), nullptr);
    EXPECT_EQ(s.tree.root.find("kept")->count, 1000u);
    EXPECT_EQ(s.dropped, 0u);
}

TEST(RingMemory, AThreadThatGetsNoRingHasItsScopesCountedAsDroppedAndSaidOnce) {
    if (kSanitized) GTEST_SKIP() << "a sanitizer cannot run under a tight address-space limit";
    TempDir dir;
    const std::string err_path = dir.str() + "/stderr.txt";
    const Outcome child = run_bounded(
        [&] {
            const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ::dup2(fd, 2);
            Session session(timers_only(dir));
            // The drainer's start work maps the pool's segments and swaps them for faulted ones,
            // freeing the first: address space freed after the limit below is taken would leave
            // the starved thread room for its ring. A snapshot runs only after that work.
            (void)session.snapshot();
            std::atomic<bool> warmed{false}, go{false}, done{false};
            std::thread starved([&] {
                // This thread's malloc arena exists before the limit. A process running this test
                // alone (ctest runs each test in its own) has no arena left by exited threads to
                // reuse, and creating one (a 64 MB reservation) under the limit fails glibc's own
                // bookkeeping (the thread-local destructors' list) before ringprof's ring.
                void* volatile warm = std::malloc(64);
                std::free(warm);
                warmed = true;
                while (!go.load()) std::this_thread::sleep_for(1ms);
                for (int i = 0; i < 100; ++i) {
                    PROF_SCOPE("starved");
                }
                done = true;
            });
            while (!warmed.load()) std::this_thread::sleep_for(1ms);
            // Address space as it is now: the thread's first ring segment cannot be mapped.
            rlimit old{};
            ::getrlimit(RLIMIT_AS, &old);
            rlimit tight = old;
            tight.rlim_cur = status_kib("VmSize") * 1024;
            ::setrlimit(RLIMIT_AS, &tight);
            go = true;
            while (!done.load()) std::this_thread::sleep_for(1ms);
            ::setrlimit(RLIMIT_AS, &old);
            starved.join();
            const Snapshot s = session.snapshot();
            session.flush();
            session.flush();
            if (s.tree.root.find("starved") != nullptr) return 3;
            return s.dropped == 100 ? 0 : 1;
        },
        without_exit_handlers(60s));
    ASSERT_TRUE(child.finished) << "hung";
    EXPECT_EQ(child.exit_code, 0) << "1: the 100 scopes were not counted as dropped, 3: recorded";
    const std::string err = testing::read_text(err_path);
    EXPECT_NE(err.find("100 scopes dropped"), std::string::npos) << err;
    EXPECT_NE(err.find("no ring memory"), std::string::npos) << err;
    // Once at the first flush and once at the end of the session, not at every flush.
    std::size_t lines = 0;
    for (std::size_t p = err.find("scopes dropped"); p != std::string::npos; p = err.find("scopes dropped", p + 1))
        ++lines;
    EXPECT_EQ(lines, 2u) << err;
}

}  // namespace
}  // namespace ringprof
