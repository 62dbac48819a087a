// The timeline writer yields the cores to the threads that build the aggregates: it runs ten
// nice levels below the thread that started it (capped at the lowest), so on a busy machine
// its text and compression do not take the drainer's or the producers' time.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "engine/clock_calibration.hpp"
#include "engine/timeline_records.hpp"
#include "engine/timeline_writer.hpp"
#include "ringprof/ringprof.hpp"

namespace ringprof {
namespace {

alignas(16) constexpr Site kSite{"s", "", "", 0};

int nice_of_this_thread() {
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, tid);
    EXPECT_EQ(errno, 0) << "getpriority of thread " << tid;
    return nice;
}

// Notes the nice value of the thread it is called on (the writer's).
class NiceProbe : public TimelineBackend {
public:
    const char* name() const override { return "nice probe"; }
    void on_spans(const SpanBatch&) override { writer_nice.store(nice_of_this_thread()); }
    std::atomic<int> writer_nice{-100};
};

TEST(TimelineWriter, RunsTenNiceLevelsBelowTheThreadThatStartedIt) {
    const int mine = nice_of_this_thread();
    detail::ClockCalibration clock;
    detail::TimelineWriter writer(clock, detail::TimelineOptions{});
    NiceProbe probe;
    writer.add_backend(&probe);
    writer.start();
    detail::TimelineRecords raw;
    raw.append(detail::TimelineRecord::thread(7, 0));  // in step 0: delivered without waiting for a horizon
    const std::uint64_t t = detail::read_ticks();
    raw.append(detail::TimelineRecord::span(&kSite, t, t + 10, 0));
    writer.on_pass(raw, {{7, "producer"}});
    { const auto hold = writer.hold(); }  // delivers everything before returning
    writer.stop();
    EXPECT_EQ(probe.writer_nice.load(), std::min(19, mine + 10));
    EXPECT_EQ(nice_of_this_thread(), mine) << "only the writer thread is lowered";
}

}  // namespace
}  // namespace ringprof
