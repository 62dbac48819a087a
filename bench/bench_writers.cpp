// Text writing speed of the snapshot outputs: the timers file, the saved profile and the
// statistics table, for large inputs (the unit tests check content only). Compare runs as
// ratios to a baseline built in the same session (README: Measured overhead).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../tests/flame/flame_test_trees.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timers_json.hpp"

namespace {

// Irregular times (every digit significant, as measured seconds are) from a fixed LCG.
double next_seconds(std::uint64_t& state) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53 * 0.25;
}

std::vector<ringprof::FunctionStats> generated_rows(std::size_t n) {
    std::uint64_t state = 42;
    std::vector<ringprof::FunctionStats> rows(n);
    for (std::size_t i = 0; i < n; ++i) {
        ringprof::FunctionStats& f = rows[i];
        f.file = "/home/user/project/src/module_" + std::to_string(i % 97) + ".cpp";
        f.line = static_cast<std::uint32_t>(10 + i % 900);
        f.name = "function_" + std::to_string(i);
        if (i % 3 == 0) f.signature = "(a:vector<float>(shape=(16,)), n:int)";
        f.counts.ncalls = 1 + i * 7 % 100000;
        f.counts.primitive_calls = i % 11 == 0 ? f.counts.ncalls / 2 : f.counts.ncalls;
        f.counts.tottime = next_seconds(state);
        f.counts.cumtime = f.counts.tottime + next_seconds(state);
        for (std::size_t k = 1; k <= 3; ++k) {
            ringprof::CalleeStats c;
            c.callee = (i + k * 31) % n;
            c.counts = {1 + k, 1 + k, next_seconds(state), next_seconds(state)};
            f.callees.push_back(c);
        }
    }
    return rows;
}

ringprof::TimerTree irregular_tree(std::size_t nodes) {
    ringprof::TimerTree t;
    t.root = flame_test::generated_tree(nodes);
    std::uint64_t state = 7;
    std::vector<ringprof::TimerNode*> todo{&t.root};
    while (!todo.empty()) {
        ringprof::TimerNode* n = todo.back();
        todo.pop_back();
        n->total += next_seconds(state) * 1e-3;
        for (ringprof::TimerNode& c : n->children) todo.push_back(&c);
    }
    t.set_metadata("run_id", "bench");
    return t;
}

void BM_TimersJson10kNodes(benchmark::State& state) {
    const ringprof::TimerTree tree = irregular_tree(10000);
    for (auto _ : state) {
        std::string json = ringprof::write_timers_json(tree, ringprof::TimersFormat::List);
        benchmark::DoNotOptimize(json);
    }
}
BENCHMARK(BM_TimersJson10kNodes)->Unit(benchmark::kMillisecond);

void BM_StatsJson10kRows(benchmark::State& state) {
    const std::vector<ringprof::FunctionStats> rows = generated_rows(10000);
    for (auto _ : state) {
        std::string json = ringprof::write_stats_json(rows, "bench");
        benchmark::DoNotOptimize(json);
    }
}
BENCHMARK(BM_StatsJson10kRows)->Unit(benchmark::kMillisecond);

void BM_StatsTable10kRows(benchmark::State& state) {
    const std::vector<ringprof::FunctionStats> rows = generated_rows(10000);
    for (auto _ : state) {
        std::string table = ringprof::stats_table(rows);
        benchmark::DoNotOptimize(table);
    }
}
BENCHMARK(BM_StatsTable10kRows)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
