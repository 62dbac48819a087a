// Rendering speed of the flame outputs for a 10,000-node tree (the unit tests check content only).
#include <benchmark/benchmark.h>

#include "../tests/flame/flame_test_trees.hpp"
#include "ringprof/flame.hpp"

namespace {

void BM_RenderHtml10kNodes(benchmark::State& state) {
    ringprof::FlameProfile p;
    p.title = "generated";
    p.merged = flame_test::generated_tree(10000);
    for (auto _ : state) {
        std::string html = ringprof::render_html(p);
        benchmark::DoNotOptimize(html);
    }
}
BENCHMARK(BM_RenderHtml10kNodes)->Unit(benchmark::kMillisecond);

void BM_RenderFolded10kNodes(benchmark::State& state) {
    const ringprof::TimerNode tree = flame_test::generated_tree(10000);
    for (auto _ : state) {
        std::string folded = ringprof::render_folded(tree);
        benchmark::DoNotOptimize(folded);
    }
}
BENCHMARK(BM_RenderFolded10kNodes)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
