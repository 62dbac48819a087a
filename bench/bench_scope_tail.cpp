// The tail of a recorded scope while threads start together and record flat out: the worst and
// the 99.99th-percentile time of one empty PROF_SCOPE (begin to end, timed around it with a bare
// rdtsc pair), as a ratio to the same percentiles of the bare pair timed the same way (no scope:
// what timing alone costs, interrupts and preemption included), with the waits for room and the
// growths the threads had to make themselves. Each iteration starts fresh threads, so every ring
// starts in its first segment and has to grow: the case where a thread would otherwise wait for
// the drainer. Arguments: threads per iteration (1, 2x and 4x the cores).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <x86intrin.h>

#include "ringprof/ringprof.hpp"

namespace {

constexpr int kScopesPerThread = 200'000;  // 400,000 events: past the first segment and the 4 MiB one

struct Tail {
    std::uint64_t worst = 0;
    std::uint64_t p9999 = 0;
};

Tail tail_of(std::vector<std::uint64_t>& ticks) {
    std::sort(ticks.begin(), ticks.end());
    Tail t;
    if (ticks.empty()) return t;
    t.worst = ticks.back();
    t.p9999 = ticks[static_cast<std::size_t>(static_cast<double>(ticks.size() - 1) * 0.9999)];
    return t;
}

// `threads` threads released at once; each times kScopesPerThread scopes (or bare pairs).
template <bool kRecord>
std::vector<std::uint64_t> run_pool(int threads) {
    std::vector<std::vector<std::uint64_t>> per_thread(static_cast<std::size_t>(threads),
                                                       std::vector<std::uint64_t>(kScopesPerThread));
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            std::uint64_t* out = per_thread[static_cast<std::size_t>(t)].data();
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) {
            }
            for (int i = 0; i < kScopesPerThread; ++i) {
                const std::uint64_t begin = __rdtsc();
                if constexpr (kRecord) {
                    PROF_SCOPE("tail");
                }
                out[i] = __rdtsc() - begin;
            }
        });
    }
    while (ready.load() < threads) std::this_thread::yield();
    go.store(true, std::memory_order_release);
    for (auto& t : pool) t.join();
    std::vector<std::uint64_t> all;
    all.reserve(static_cast<std::size_t>(threads) * kScopesPerThread);
    for (const auto& v : per_thread) all.insert(all.end(), v.begin(), v.end());
    return all;
}

double ticks_per_us() {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t c1 = __rdtsc();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(c1 - c0) / us;
}

void BM_ScopeTailWhilePoolStarts(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    const double per_us = ticks_per_us();
    Tail scope, bare;
    std::uint64_t waits = 0, growths = 0, dropped = 0;
    for (auto _ : state) {
        ringprof::Config c;
        c.output_dir = "/tmp";
        c.run_id = "ringprof_bench_scope_tail";
        c.backends = {"timers"};
        ringprof::Session session(c);
        std::vector<std::uint64_t> bare_ticks = run_pool<false>(threads);
        std::vector<std::uint64_t> scope_ticks = run_pool<true>(threads);
        const ringprof::Snapshot s = session.snapshot();
        const Tail b = tail_of(bare_ticks), sc = tail_of(scope_ticks);
        bare.worst = std::max(bare.worst, b.worst);
        bare.p9999 = std::max(bare.p9999, b.p9999);
        scope.worst = std::max(scope.worst, sc.worst);
        scope.p9999 = std::max(scope.p9999, sc.p9999);
        waits += s.waits;
        growths += s.growths;
        dropped += s.dropped;
    }
    state.counters["scope_worst_us"] = static_cast<double>(scope.worst) / per_us;
    state.counters["scope_p9999_us"] = static_cast<double>(scope.p9999) / per_us;
    state.counters["bare_worst_us"] = static_cast<double>(bare.worst) / per_us;
    state.counters["bare_p9999_us"] = static_cast<double>(bare.p9999) / per_us;
    state.counters["p9999_vs_bare"] =
        static_cast<double>(scope.p9999) / static_cast<double>(std::max<std::uint64_t>(1, bare.p9999));
    state.counters["waits"] = static_cast<double>(waits);
    state.counters["producer_growths"] = static_cast<double>(growths);
    state.counters["dropped"] = static_cast<double>(dropped);
}

void thread_counts(benchmark::internal::Benchmark* b) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int n : {1, 2 * cores, 4 * cores}) b->Arg(n);
}

BENCHMARK(BM_ScopeTailWhilePoolStarts)
    ->Apply(thread_counts)
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
