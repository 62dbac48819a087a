// The tail of a recorded scope while threads start together and record flat out: p99, p99.9,
// p99.99 and the worst time of one empty PROF_SCOPE (begin to end, timed around it with a bare
// rdtsc pair), each as a ratio to the same percentile of the bare pair timed the same way (no
// scope: what timing alone costs, interrupts and preemption included), with the waits for room and
// the growths the threads had to make themselves. Each iteration starts fresh threads, so every
// ring starts in its first segment and has to grow: the case where a thread used to wait for the
// drainer. Arguments: threads per iteration (1, 2x and 4x the cores).
//
// And what a thread's first scope costs it: BM_ThreadFirstScope (a session already running: the
// thread registers its ring) and BM_ProcessFirstScope (the very first scope of a process, which
// starts the default session on the thread that records it; each sample is a fresh process, this
// program run again with RINGPROF_BENCH_FIRST_SCOPE_CHILD set), in microseconds and as a ratio to
// a bare pair, with how many samples took longer than the bound (kFirstScopeBoundUs).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <x86intrin.h>

#include <unistd.h>

#include "ringprof/ringprof.hpp"

namespace {

constexpr int kScopesPerThread = 200'000;  // 400,000 events: past the first segment and the 4 MiB one

struct Tail {
    std::uint64_t p99 = 0;
    std::uint64_t p999 = 0;
    std::uint64_t p9999 = 0;
    std::uint64_t worst = 0;
    void keep_worse(const Tail& o) {
        p99 = std::max(p99, o.p99);
        p999 = std::max(p999, o.p999);
        p9999 = std::max(p9999, o.p9999);
        worst = std::max(worst, o.worst);
    }
};

Tail tail_of(std::vector<std::uint64_t>& ticks) {
    std::sort(ticks.begin(), ticks.end());
    Tail t;
    if (ticks.empty()) return t;
    auto at = [&](double q) { return ticks[static_cast<std::size_t>(static_cast<double>(ticks.size() - 1) * q)]; };
    t.p99 = at(0.99);
    t.p999 = at(0.999);
    t.p9999 = at(0.9999);
    t.worst = ticks.back();
    return t;
}

double ratio(std::uint64_t a, std::uint64_t b) {
    return static_cast<double>(a) / static_cast<double>(std::max<std::uint64_t>(1, b));
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
    std::uint64_t waits = 0, growths = 0, growth_ns = 0, dropped = 0;
    for (auto _ : state) {
        ringprof::Config c;
        c.output_dir = "/tmp";
        c.run_id = "ringprof_bench_scope_tail";
        c.backends = {"timers"};
        ringprof::Session session(c);
        std::vector<std::uint64_t> bare_ticks = run_pool<false>(threads);
        std::vector<std::uint64_t> scope_ticks = run_pool<true>(threads);
        const ringprof::Snapshot s = session.snapshot();
        bare.keep_worse(tail_of(bare_ticks));
        scope.keep_worse(tail_of(scope_ticks));
        waits += s.waits;
        growths += s.growths;
        growth_ns += s.growth_ns;
        dropped += s.dropped;
    }
    state.counters["p99_vs_bare"] = ratio(scope.p99, bare.p99);
    state.counters["p999_vs_bare"] = ratio(scope.p999, bare.p999);
    state.counters["p9999_vs_bare"] = ratio(scope.p9999, bare.p9999);
    state.counters["worst_vs_bare"] = ratio(scope.worst, bare.worst);
    state.counters["scope_p9999_us"] = static_cast<double>(scope.p9999) / per_us;
    state.counters["scope_worst_us"] = static_cast<double>(scope.worst) / per_us;
    state.counters["bare_p9999_us"] = static_cast<double>(bare.p9999) / per_us;
    state.counters["bare_worst_us"] = static_cast<double>(bare.worst) / per_us;
    state.counters["waits"] = static_cast<double>(waits);
    state.counters["producer_growths"] = static_cast<double>(growths);
    state.counters["growth_mean_us"] =
        growths != 0 ? static_cast<double>(growth_ns) * 1e-3 / static_cast<double>(growths) : 0;
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

// What a thread's first scope may cost it, session start included (the bound).
constexpr double kFirstScopeBoundUs = 200.0;

struct FirstScopes {
    std::vector<double> us;
    double bare_us = 0.0;  // the cheapest bare pair seen
    void report(benchmark::State& state) {
        if (us.empty()) return;
        std::sort(us.begin(), us.end());
        state.counters["first_scope_median_us"] = us[us.size() / 2];
        state.counters["first_scope_worst_us"] = us.back();
        state.counters["median_vs_bare"] = us[us.size() / 2] / std::max(bare_us, 1e-3);
        state.counters["over_bound"] =
            static_cast<double>(std::count_if(us.begin(), us.end(), [](double v) { return v > kFirstScopeBoundUs; }));
        state.counters["samples"] = static_cast<double>(us.size());
    }
};

// A fresh thread's first scope (registering its ring) while a session runs.
void BM_ThreadFirstScope(benchmark::State& state) {
    const double per_us = ticks_per_us();
    ringprof::Config c;
    c.output_dir = "/tmp";
    c.run_id = "ringprof_bench_first_scope";
    c.backends = {"timers"};
    ringprof::Session session(c);
    FirstScopes first;
    first.bare_us = 1e9;
    for (auto _ : state) {
        std::uint64_t scope_ticks = 0, bare_ticks = 0;
        std::thread([&] {
            std::uint64_t begin = __rdtsc();
            bare_ticks = __rdtsc() - begin;
            begin = __rdtsc();
            { PROF_SCOPE("first"); }
            scope_ticks = __rdtsc() - begin;
        }).join();
        first.us.push_back(static_cast<double>(scope_ticks) / per_us);
        first.bare_us = std::min(first.bare_us, static_cast<double>(bare_ticks) / per_us);
    }
    first.report(state);
}
BENCHMARK(BM_ThreadFirstScope)->Iterations(50)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The child's part: its first scope starts the default session. Prints "<scope ticks> <bare
// ticks> <ticks per us>" and exits (the session ends and writes its outputs at exit).
int first_scope_child() {
    std::uint64_t begin = __rdtsc();
    const std::uint64_t bare = __rdtsc() - begin;
    begin = __rdtsc();
    { PROF_SCOPE("first"); }
    const std::uint64_t scope = __rdtsc() - begin;
    std::printf("%llu %llu %.3f\n", static_cast<unsigned long long>(scope), static_cast<unsigned long long>(bare),
                ticks_per_us());
    return 0;
}

void BM_ProcessFirstScope(benchmark::State& state) {
    FirstScopes first;
    first.bare_us = 1e9;
    const std::string command =
        "RINGPROF_BENCH_FIRST_SCOPE_CHILD=1 RINGPROF_OUTPUT_DIR=/tmp/ringprof_bench_first_scope "
        "/proc/" +
        std::to_string(::getpid()) + "/exe 2>/dev/null";
    for (auto _ : state) {
        FILE* child = ::popen(command.c_str(), "r");
        if (child == nullptr) {
            state.SkipWithError("cannot start a child process");
            return;
        }
        unsigned long long scope = 0, bare = 0;
        double per_us = 0.0;
        const int read = std::fscanf(child, "%llu %llu %lf", &scope, &bare, &per_us);
        if (::pclose(child) != 0 || read != 3 || per_us <= 0.0) {
            state.SkipWithError("the child did not report its first scope");
            return;
        }
        first.us.push_back(static_cast<double>(scope) / per_us);
        first.bare_us = std::min(first.bare_us, static_cast<double>(bare) / per_us);
    }
    first.report(state);
}
BENCHMARK(BM_ProcessFirstScope)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    if (std::getenv("RINGPROF_BENCH_FIRST_SCOPE_CHILD") != nullptr) return first_scope_child();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
