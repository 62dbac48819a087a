// What a marker costs, as a ratio to the cheapest possible timing: a bare pair of clock reads
// measured in the same run. `--budget=R` (or RINGPROF_BENCH_BUDGET=R) makes the program fail when
// PROF_SCOPE costs more than R times that floor; CI runs it with the budget and
// --benchmark_repetitions, and the fastest repetition of each benchmark counts.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "overhead_compiled_out.hpp"
#include "ringprof/ringprof.hpp"

namespace {

ringprof::Session* g_session = nullptr;

void start_session() {
    if (g_session != nullptr) return;
    ringprof::Config c;
    c.output_dir = "./ringprof_bench_out";
    c.run_id = "bench_overhead";
    c.backends = {"timers"};
    c.ring_bytes = std::size_t{1} << 20;  // the default: what users get
    g_session = new ringprof::Session(c);
}

void BM_TscPair(benchmark::State& state) {
    for (auto _ : state) {
        std::uint64_t a = ringprof::detail::read_ticks();
        benchmark::DoNotOptimize(a);
        std::uint64_t b = ringprof::detail::read_ticks();
        benchmark::DoNotOptimize(b);
    }
}
BENCHMARK(BM_TscPair);

void BM_SteadyClockPair(benchmark::State& state) {
    for (auto _ : state) {
        auto a = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(a);
        auto b = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(b);
    }
}
BENCHMARK(BM_SteadyClockPair);

void report_drops(benchmark::State& state, std::uint64_t drops_before) {
    state.counters["dropped"] = static_cast<double>(ringprof::dropped_scopes() - drops_before);
}

// Scopes are timed in batches that fit the default ring, with the ring drained between batches
// (timing paused): this measures a recorded scope. Run flat out for long, a producer outpaces
// any consumer and the ring refuses scopes, which would make the figure look better than it is;
// the "dropped" counter proves that did not happen. Sustained throughput is bench_pipeline's.
constexpr int kBatch = 8192;

void BM_ProfScope(benchmark::State& state) {
    start_session();
    ringprof::enable();
    const std::uint64_t drops_before = state.thread_index() == 0 ? ringprof::dropped_scopes() : 0;
    for (auto _ : state) {
        for (int i = 0; i < kBatch; ++i) {
            PROF_SCOPE("bench_scope");
            benchmark::ClobberMemory();
        }
        state.PauseTiming();
        g_session->snapshot();  // each thread drains (its own ring included) before going on
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * kBatch);
    state.counters["batch"] = benchmark::Counter(kBatch, benchmark::Counter::kAvgThreads);
    if (state.thread_index() == 0) report_drops(state, drops_before);
}
BENCHMARK(BM_ProfScope);
BENCHMARK(BM_ProfScope)->Name("BM_ProfScope_2threads")->Threads(2);

void BM_ProfScopeDisabled(benchmark::State& state) {
    start_session();
    ringprof::disable();
    for (auto _ : state) {
        PROF_SCOPE("bench_scope_disabled");
        benchmark::ClobberMemory();
    }
    ringprof::enable();
}
BENCHMARK(BM_ProfScopeDisabled);

void BM_CompiledOut(benchmark::State& state) {
    for (auto _ : state) {
        bench_compiled_out_scope();
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_CompiledOut);

// The baseline a hand-rolled tracer often is: a global mutex and a vector of records.
struct NaiveTracer {
    struct Record {
        const char* name;
        std::chrono::steady_clock::time_point begin, end;
    };
    std::mutex mutex;
    std::vector<Record> records;
};
NaiveTracer g_naive;

void BM_NaiveMutexVectorTracer(benchmark::State& state) {
    for (auto _ : state) {
        const auto begin = std::chrono::steady_clock::now();
        benchmark::ClobberMemory();
        const auto end = std::chrono::steady_clock::now();
        std::lock_guard<std::mutex> lock(g_naive.mutex);
        g_naive.records.push_back({"naive", begin, end});
        if (g_naive.records.size() > (1u << 20)) g_naive.records.clear();
    }
}
BENCHMARK(BM_NaiveMutexVectorTracer);

// Collects per-iteration times so main can print ratios and check the budget.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.run_type == Run::RT_Iteration && r.iterations > 0) {
                // Batched benchmarks time `batch` markers per iteration.
                const auto batch = r.counters.find("batch");
                const double per_iteration = batch != r.counters.end() ? batch->second.value : 1.0;
                // With repetitions, keep the fastest: on a shared machine noise only ever adds
                // time, and floor and marker are treated alike.
                const double t = r.GetAdjustedCPUTime() / per_iteration;
                auto [it, inserted] = ns.emplace(r.benchmark_name(), t);
                if (!inserted && t < it->second) it->second = t;
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }
    std::map<std::string, double> ns;
};

double budget_from(int& argc, char** argv) {
    double budget = 0.0;
    if (const char* env = std::getenv("RINGPROF_BENCH_BUDGET")) budget = std::atof(env);
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--budget=", 9) == 0) {
            budget = std::atof(argv[i] + 9);
            for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
            --argc;
            break;
        }
    }
    return budget;
}

}  // namespace

int main(int argc, char** argv) {
    const double budget = budget_from(argc, argv);
    benchmark::Initialize(&argc, argv);
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    delete g_session;

    auto find = [&](const char* prefix) -> double {
        for (const auto& [name, t] : reporter.ns) {
            if (name.rfind(prefix, 0) == 0) return t;
        }
        return 0.0;
    };
    const double floor = find("BM_TscPair");
    if (floor <= 0.0) return 0;  // filtered run: nothing to compare
    std::printf("\nCost relative to a bare pair of clock reads (%.2f ns in this run):\n", floor);
    for (const auto& [name, t] : reporter.ns) std::printf("  %-40s %6.2fx\n", name.c_str(), t / floor);
    const double scope = find("BM_ProfScope");
    if (budget > 0.0 && scope > 0.0) {
        const double ratio = scope / floor;
        std::printf("\nPROF_SCOPE / TSC pair = %.2fx (budget %.2fx): %s\n", ratio, budget,
                    ratio <= budget ? "within budget" : "OVER BUDGET");
        if (ratio > budget) return 1;
    }
    return 0;
}
