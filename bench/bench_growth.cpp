// What a producer's own growth (Ring::grow_on_this_thread: one mmap of its next segment) costs it
// while the drainer prepares segments, the situation of a `ringprof.grow` node: the time of one
// 4 MiB mapping, p99 and worst, beside a thread that prepares and frees segments as the drainer
// does (allocate_segment / free_segment), as a ratio to the same mapping with that thread idle.
// Arguments: 0 the preparing thread idle (the reference), 1 preparing as ringprof does, 2
// preparing with MAP_POPULATE (how segments used to be prepared: a populate holds the mmap lock
// the producer's mapping needs for the whole 4 MiB).
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <x86intrin.h>

#include "record/ring_room.hpp"

namespace {

using namespace ringprof::detail;

constexpr std::uint64_t kCapacity = kHotSegmentBytes / sizeof(ringprof::detail::Event);
constexpr int kMappings = 2000;

double ticks_per_us() {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t c1 = __rdtsc();
    return static_cast<double>(c1 - c0) /
           std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void prepare(int how, const std::atomic<bool>& stop) {
    while (!stop.load(std::memory_order_relaxed)) {
        if (how == 1) {
            free_segment(allocate_segment(kCapacity));
        } else {
            const std::size_t bytes = kHotSegmentBytes;
            void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            if (p != MAP_FAILED) ::munmap(p, bytes);
        }
    }
}

std::vector<std::uint64_t> g_reference;  // arg 0's mapping times, for the ratios

void BM_ProducerGrowthBesidePreparation(benchmark::State& state) {
    const int how = static_cast<int>(state.range(0));
    const double per_us = ticks_per_us();
    std::vector<std::uint64_t> ticks;
    for (auto _ : state) {
        std::atomic<bool> stop{false};
        std::thread preparer;
        if (how != 0) preparer = std::thread([&] { prepare(how, stop); });
        for (int i = 0; i < kMappings; ++i) {
            const std::uint64_t begin = __rdtsc();
            RingSegment* s = allocate_segment_unfaulted(kCapacity);
            ticks.push_back(__rdtsc() - begin);
            free_segment(s);
            std::this_thread::sleep_for(std::chrono::microseconds(50));  // growths are rare
        }
        stop.store(true);
        if (preparer.joinable()) preparer.join();
    }
    std::sort(ticks.begin(), ticks.end());
    auto at = [](const std::vector<std::uint64_t>& v, double q) {
        return v.empty() ? 0.0
                         : static_cast<double>(v[static_cast<std::size_t>(static_cast<double>(v.size() - 1) * q)]);
    };
    if (how == 0) g_reference = ticks;
    state.counters["map_p50_us"] = at(ticks, 0.5) / per_us;
    state.counters["map_p99_us"] = at(ticks, 0.99) / per_us;
    state.counters["map_worst_us"] = at(ticks, 1.0) / per_us;
    if (!g_reference.empty()) {
        state.counters["p99_vs_idle"] = at(ticks, 0.99) / std::max(1.0, at(g_reference, 0.99));
    }
}
BENCHMARK(BM_ProducerGrowthBesidePreparation)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
