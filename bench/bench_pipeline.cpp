// How fast the drainer turns events into aggregates, and what the whole pipeline sustains.
#include <benchmark/benchmark.h>

#include <memory>
#include <thread>
#include <vector>

#include "aggregator.hpp"
#include "clock_calibration.hpp"
#include "ringprof/ringprof.hpp"
#include "thread_ring.hpp"

namespace {

using namespace ringprof::detail;

constexpr ringprof::Site kOuter{"outer", "bench", __FILE__, __LINE__};
constexpr ringprof::Site kInner{"inner", "bench", __FILE__, __LINE__};

// Aggregation alone, on one core: a ring pre-filled with nested begin/end pairs is decoded.
void BM_DrainerAggregation(benchmark::State& state) {
    constexpr std::uint64_t kEvents = 1 << 16;
    ThreadRing ring(kEvents, kEvents);
    ClockCalibration clock;
    Aggregator aggregator(clock);
    ThreadTrack track(&ring, 0, 0, 0);
    std::uint64_t produced = 0;
    auto fill = [&] {
        Ring& r = ring.ring();
        std::uint64_t t = produced;
        while (r.readable_head() - r.tail() + 6 <= kEvents) {
            Event ev[6] = {{t, make_tag(&kOuter, EventKind::Begin)}, {t + 1, make_tag(&kInner, EventKind::Begin)},
                           {t + 2, make_tag(&kInner, EventKind::End)},   {t + 3, make_tag(&kInner, EventKind::Begin)},
                           {t + 4, make_tag(&kInner, EventKind::End)},   {t + 5, make_tag(&kOuter, EventKind::End)}};
            r.try_write(ev, 6);
            t += 6;
        }
        produced = t;
    };
    std::uint64_t decoded = 0;
    for (auto _ : state) {
        state.PauseTiming();
        fill();
        state.ResumeTiming();
        Ring& r = ring.ring();
        const std::uint64_t tail = r.tail(), head = r.readable_head();
        r.release(aggregator.decode(track, tail, head, nullptr));
        decoded += head - tail;
    }
    state.counters["events_per_second"] = benchmark::Counter(static_cast<double>(decoded), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DrainerAggregation);

// The whole pipeline: producer threads flat out with the default ring size while the drainer
// runs on the same two cores. Reports the share of scopes refused because a ring was full.
void BM_PipelineFlatOut(benchmark::State& state) {
    const int producers = static_cast<int>(state.range(0));
    constexpr int kScopesPerThread = 500'000;
    ringprof::Config c;
    c.output_dir = "./ringprof_bench_out";
    c.run_id = "bench_pipeline";
    c.backends = {"timers"};
    double issued = 0, dropped = 0;
    for (auto _ : state) {
        ringprof::Session session(c);
        std::vector<std::thread> threads;
        for (int p = 0; p < producers; ++p) {
            threads.emplace_back([] {
                for (int i = 0; i < kScopesPerThread / 2; ++i) {
                    PROF_SCOPE("outer");
                    PROF_SCOPE("inner");
                }
            });
        }
        for (auto& t : threads) t.join();
        dropped += static_cast<double>(session.snapshot().dropped);
        issued += static_cast<double>(producers) * kScopesPerThread;
    }
    state.counters["dropped_fraction"] = dropped / issued;
    state.counters["scopes_per_second"] = benchmark::Counter(issued, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PipelineFlatOut)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
