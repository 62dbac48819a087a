// The drainer stays out of its producers' way: it reads a ring in batches on its own
// cadence instead of following right behind the producer, and a producer pays for waking it (a
// system call) rarely, not at every quarter of a small segment. Measured in bench_overhead
// (--placement=split): a drainer that re-reads a ring right behind its producer makes a scope
// 1.4-1.6x slower; each of its passes steals the head's cache line and the line being written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "record/ring_room.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::TempDir;
using testing::timers_only;

// Bursts of `per_burst` scopes every `period` (no catching up after a late start) for `length`.
std::uint64_t record_paced(int per_burst, std::chrono::microseconds period, std::chrono::milliseconds length) {
    std::uint64_t issued = 0;
    const auto end = Clock::now() + length;
    for (auto next = Clock::now(); next < end;) {
        for (int i = 0; i < per_burst; ++i) {
            PROF_SCOPE("paced");
        }
        issued += per_burst;
        next += period;
        const auto now = Clock::now();
        if (next < now) next = now;
        while (Clock::now() < next) {
        }
    }
    return issued;
}

std::uint64_t recorded(const Snapshot& s, const char* name) {
    const TimerNode* n = s.tree.root.find(name);
    return n != nullptr ? n->count : 0;
}

// 80 events every 10 us cross a quarter of the 1,024-event first segment three times per ~100 us
// drainer sleep. The producer wakes the drainer once per crossing from below a quarter (it sees
// the tail only when it reaches its limit), so it makes that system call a few times in 30 ms,
// not once per 256 events (~900). Measured: 1 ring, on a loaded machine and under SCHED_FIFO.
TEST(DrainerInterference, ASteadyThreadTooFastForItsFirstSegmentRingsTheDoorbellAFewTimesNotEveryQuarter) {
    TempDir dir;
    Session session(timers_only(dir));
    session.snapshot();
    std::uint64_t issued = 0;
    std::uint32_t rings = 0;
    std::thread producer([&] {
        const std::uint32_t before = detail::doorbell();
        issued = record_paced(40, 10us, 30ms);
        rings = detail::doorbell() - before;
    });
    producer.join();
    const Snapshot s = session.snapshot();
    EXPECT_EQ(recorded(s, "paced"), issued) << "moving on early must not lose a scope";
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_LE(rings, 10u) << issued << " scopes rang the drainer's doorbell " << rings << " times";
}

// A producer flat out for 40 ms: the drainer still passes about once per ~100 us sleep (at most
// 400, plus a few while the thread leaves its first segment), never in a loop behind the head.
// Measured 200-265 passes under SCHED_FIFO (as on an idle machine), 4-8 at load 25; a drainer
// that re-reads without sleeping made 31,707.
TEST(DrainerInterference, AFlatOutProducerIsReadOnTheDrainersCadenceNotChased) {
    TempDir dir;
    Session session(timers_only(dir));
    session.snapshot();
    std::uint64_t issued = 0, passes = 0;
    Clock::duration took{};
    std::thread producer([&] {
        const std::uint64_t before = detail::drainer_passes();
        const auto start = Clock::now();
        const auto end = start + 40ms;
        while (Clock::now() < end) {
            for (int i = 0; i < 64; ++i) {
                PROF_SCOPE("flat_out");
            }
            issued += 64;
        }
        took = Clock::now() - start;
        passes = detail::drainer_passes() - before;
    });
    producer.join();
    const Snapshot s = session.snapshot();
    EXPECT_EQ(recorded(s, "flat_out"), issued);
    const auto sleeps =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(took).count() / 100);
    EXPECT_LE(passes, sleeps + 40) << passes << " drainer passes in " << sleeps * 100 << " us of " << issued
                                   << " scopes";
}

// A thread recording a scope every ~10 us fills a quarter of even its first segment in ~1.3 ms:
// the drainer then sleeps ~1 ms between passes (at most 60 in 50 ms, plus a few while it learns
// the rate), not 100 us (~500 passes), so it preempts a producer on its core ten times less often.
TEST(DrainerInterference, RingsFillingSlowlyAreReadAboutOncePerMillisecond) {
    TempDir dir;
    Session session(timers_only(dir));
    session.snapshot();
    std::uint64_t issued = 0, passes = 0;
    std::thread producer([&] {
        const std::uint64_t before = detail::drainer_passes();
        issued = record_paced(1, 10us, 50ms);
        passes = detail::drainer_passes() - before;
    });
    producer.join();
    const Snapshot s = session.snapshot();
    EXPECT_EQ(recorded(s, "paced"), issued);
    EXPECT_LE(passes, 60u + 10u) << passes << " drainer passes while " << issued << " scopes trickled in over 50 ms";
}

}  // namespace
}  // namespace ringprof
