// How recording scales with the threads that record: 1, 2, 4 ... hardware_concurrency() threads
// (and that count itself) record empty PROF_SCOPEs back to back. Each thread times batches of bare
// rdtsc pairs and of scopes in alternating order, so both halves of a pair see the same machine;
// the figure is the median, over batch pairs, threads and iterations, of the ratio of the two
// (scope_vs_bare_pair), the way bench_overhead pairs a scope with its floor. Beside it: the waits
// for the drainer and the drops in that time (Snapshot::waits, Snapshot::dropped, over every
// ring), whether the count of recorded scopes is exact, how many threads drained (drain_threads:
// the drainer and the helpers that decode shares of its passes, RINGPROF_DRAINERS) and how many
// events they turned into aggregates per second of their own CPU time (their thread CPU clocks,
// found by their name, "ringprof-drain", under /proc/self/task): the drain's throughput, which the
// recording outgrows when it stays flat while threads are added.
//
// The threads live across iterations (their rings have grown), start every iteration together,
// and the session is ringprof's default configuration with only the timers output (what is
// measured is the marker and the drain, not a writer); RINGPROF_DRAINERS is honoured. Cheap: a few seconds in all at 2 cores.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <x86intrin.h>

#include "ringprof/ringprof.hpp"

namespace {

// Per thread and iteration, 25 pairs of batches (in alternating order) of 4,096 scopes and 4,096
// bare pairs: 204,800 events. A preempted batch spoils one pair's ratio, which the median ignores.
constexpr int kScopesPerBatch = 4096;
constexpr int kBatchPairs = 25;

ringprof::Session* g_session = nullptr;

void start_session() {
    if (g_session != nullptr) return;
    ringprof::Config c = ringprof::Config::from_environment();
    c.output_dir = "./ringprof_bench_out";
    c.run_id = "bench_scaling";
    c.backends = {"timers"};
    c.system_metrics = false;
    g_session = new ringprof::Session(c);
}

double cpu_seconds(clockid_t clock) {
    timespec ts{};
    if (clock == -1 || ::clock_gettime(clock, &ts) != 0) return 0.0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The threads named `name` and their CPU time so far, summed.
struct NamedThreadsCpu {
    int threads = 0;
    double seconds = 0.0;
};
NamedThreadsCpu cpu_of_threads_named(const char* name) {
    NamedThreadsCpu sum;
    DIR* tasks = ::opendir("/proc/self/task");
    if (tasks == nullptr) return sum;
    while (dirent* e = ::readdir(tasks)) {
        if (e->d_name[0] == '.') continue;
        std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
        std::string n;
        std::getline(comm, n);
        if (n != name) continue;
        const auto tid = static_cast<clockid_t>(std::atoi(e->d_name));
        ++sum.threads;
        sum.seconds += cpu_seconds((~tid << 3) | 6);  // the kernel's per-thread CPU clock id (CPUCLOCK_SCHED)
    }
    ::closedir(tasks);
    return sum;
}
// Threads that time kBatchPairs pairs of batches per generation, started together.
class Pool {
public:
    explicit Pool(int threads) : ratios_(static_cast<std::size_t>(threads)) {
        for (int t = 0; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }
    ~Pool() {
        quit_.store(true, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_acq_rel);
        for (auto& w : workers_) w.join();
    }
    // One generation: every thread times its pairs of batches; returns when all are done.
    void run() {
        done_.store(0, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_acq_rel);
        while (done_.load(std::memory_order_acquire) < static_cast<int>(workers_.size())) std::this_thread::yield();
    }
    // Per thread, the last generation's scope/bare ratio of each pair of batches.
    const std::vector<std::vector<double>>& ratios() const { return ratios_; }

private:
    void work(int t) {
        std::uint64_t seen = 0;
        for (;;) {
            std::uint64_t g;
            while ((g = generation_.load(std::memory_order_acquire)) == seen) {
                __builtin_ia32_pause();
            }
            seen = g;
            if (quit_.load(std::memory_order_acquire)) return;
            std::vector<double>& out = ratios_[static_cast<std::size_t>(t)];
            out.clear();
            for (int k = 0; k < kBatchPairs; ++k) {
                std::uint64_t bare = 0, scope = 0;
                if (k % 2 == 0) {
                    bare = bare_batch();
                    scope = scope_batch();
                } else {
                    scope = scope_batch();
                    bare = bare_batch();
                }
                out.push_back(static_cast<double>(scope) / static_cast<double>(std::max<std::uint64_t>(1, bare)));
            }
            done_.fetch_add(1, std::memory_order_acq_rel);
        }
    }
    static std::uint64_t bare_batch() {
        const std::uint64_t t0 = __rdtsc();
        for (int i = 0; i < kScopesPerBatch; ++i) {
            std::uint64_t a = __rdtsc();
            benchmark::DoNotOptimize(a);
            std::uint64_t b = __rdtsc();
            benchmark::DoNotOptimize(b);
        }
        return __rdtsc() - t0;
    }
    static std::uint64_t scope_batch() {
        const std::uint64_t t0 = __rdtsc();
        for (int i = 0; i < kScopesPerBatch; ++i) {
            PROF_SCOPE("bench_scaling_scope");
            benchmark::ClobberMemory();
        }
        return __rdtsc() - t0;
    }

    std::vector<std::vector<double>> ratios_;
    std::vector<std::thread> workers_;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> done_{0};
    std::atomic<bool> quit_{false};
};

std::uint64_t recorded_scopes(const ringprof::Snapshot& s) {
    const ringprof::TimerNode* n = s.tree.root.find("bench_scaling_scope");
    return n != nullptr ? n->count : 0;
}

void BM_ScopesBackToBack(benchmark::State& state) {
    start_session();
    const int threads = static_cast<int>(state.range(0));
    Pool pool(threads);
    pool.run();  // warm-up: every ring grows to its size before anything is counted
    // The drainer names itself once its start's work is done (milliseconds after the session's).
    NamedThreadsCpu drain_before;
    for (int tries = 0; tries < 500 && (drain_before = cpu_of_threads_named("ringprof-drain")).threads == 0; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (drain_before.threads == 0) {
        state.SkipWithError("no thread named ringprof-drain under /proc/self/task after 5 s");
        return;
    }
    const ringprof::Snapshot before = g_session->snapshot();
    drain_before = cpu_of_threads_named("ringprof-drain");
    std::vector<double> ratios;
    std::uint64_t generations = 0;
    for (auto _ : state) {
        pool.run();
        for (const std::vector<double>& r : pool.ratios()) ratios.insert(ratios.end(), r.begin(), r.end());
        ++generations;
    }
    std::sort(ratios.begin(), ratios.end());
    const ringprof::Snapshot after = g_session->snapshot();  // every ring read to here
    // A helper started meanwhile had no CPU time before.
    const NamedThreadsCpu drain_after = cpu_of_threads_named("ringprof-drain");
    const double drainer_cpu = drain_after.seconds - drain_before.seconds;
    const std::uint64_t scopes = generations * static_cast<std::uint64_t>(threads) * kScopesPerBatch * kBatchPairs;
    state.counters["threads"] = threads;
    state.counters["scope_vs_bare_pair"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];  // the median
    state.counters["waits"] = static_cast<double>(after.waits - before.waits);
    state.counters["wait_ms"] = static_cast<double>(after.wait_ns - before.wait_ns) * 1e-6;
    state.counters["dropped"] = static_cast<double>(after.dropped - before.dropped);
    state.counters["counts_exact"] = recorded_scopes(after) - recorded_scopes(before) == scopes ? 1 : 0;
    state.counters["drain_threads"] = drain_after.threads;
    state.counters["drainer_cpu_s"] = drainer_cpu;
    state.counters["events_per_drainer_cpu_s"] =
        drainer_cpu > 0.0 ? 2.0 * static_cast<double>(scopes) / drainer_cpu : 0;
    state.SetItemsProcessed(static_cast<std::int64_t>(scopes));
}

void thread_counts(benchmark::internal::Benchmark* b) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int n = 1; n < cores; n *= 2) b->Arg(n);
    b->Arg(cores);
}

BENCHMARK(BM_ScopesBackToBack)->Apply(thread_counts)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
