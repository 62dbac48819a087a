// Many distinct names under one parent, up to 1,000,000: what a program's flush and exit cost
// (the drainer's call tree, the process tree), and what `ringprof merge-timers` and
// `ringprof flame` cost on files with that many siblings. Read as ratios between sizes of the
// same benchmark in one run: linear lookups keep the time per name (the "per_name" counter, in
// CPU time of the whole process, the drainer's included) flat as the count grows fourfold; a
// sibling scan made it grow fourfold too.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ringprof/config.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/session.hpp"
#include "ringprof/timer_tree.hpp"
#include "ringprof/timers_json.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
    const fs::path p = fs::temp_directory_path() / ("ringprof_bench_trees_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
}

std::string name_of(std::int64_t i) { return "scope_" + std::to_string(i); }

struct Names {
    explicit Names(std::int64_t n) {
        for (std::int64_t i = 0; i < n; ++i) text.push_back(name_of(i));
        for (const std::string& t : text) sites.push_back(ringprof::Site{t.c_str(), "f", "bench_trees.cpp", 1});
    }
    std::vector<std::string> text;
    std::vector<ringprof::Site> sites;
};

std::unique_ptr<ringprof::Session> session_with(const Names& names, const fs::path& dir) {
    ringprof::Config c;
    c.output_dir = dir.string();
    c.run_id = "siblings";
    c.backends = {"timers"};
    c.ring_bytes = std::size_t{64} << 20;  // every event of a pass fits: no waits in the figures
    auto s = std::make_unique<ringprof::Session>(c);
    for (const ringprof::Site& site : names.sites) ringprof::detail::Scope scope(&site);
    return s;
}

void per_name(benchmark::State& state) {
    state.counters["per_name"] =
        benchmark::Counter(static_cast<double>(state.range(0)),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// A flush: the drainer reads the pass (one new child per scope) and the timers file is written.
void BM_FlushManySiblings(benchmark::State& state) {
    const Names names(state.range(0));
    const fs::path dir = scratch();
    for (auto _ : state) {
        state.PauseTiming();
        auto session = session_with(names, dir);
        state.ResumeTiming();
        session->flush();
        state.PauseTiming();
        session.reset();
        state.ResumeTiming();
    }
    per_name(state);
    fs::remove_all(dir);
}
BENCHMARK(BM_FlushManySiblings)
    ->Arg(62500)
    ->Arg(250000)
    ->Arg(1000000)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// The end of a program: the session's last pass, final snapshot and files.
void BM_ExitManySiblings(benchmark::State& state) {
    const Names names(state.range(0));
    const fs::path dir = scratch();
    for (auto _ : state) {
        state.PauseTiming();
        auto session = session_with(names, dir);
        state.ResumeTiming();
        session.reset();
    }
    per_name(state);
    fs::remove_all(dir);
}
BENCHMARK(BM_ExitManySiblings)
    ->Arg(62500)
    ->Arg(250000)
    ->Arg(1000000)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

ringprof::TimerTree flat_tree(std::int64_t n) {
    ringprof::TimerTree t;
    for (std::int64_t i = 0; i < n; ++i) {
        ringprof::TimerNode c(name_of(i));
        c.total = 1.0;
        c.count = 1;
        t.root.children.push_back(std::move(c));
    }
    return t;
}

// What `ringprof merge-timers a.json b.json` does: read both, merge them, write the result.
void BM_MergeTimersManySiblings(benchmark::State& state) {
    const fs::path dir = scratch();
    const std::string path = (dir / "siblings_timers.json").string();
    std::ofstream(path) << ringprof::write_timers_json(flat_tree(state.range(0)), ringprof::TimersFormat::List);
    for (auto _ : state) {
        ringprof::TimerTree merged;
        for (int file = 0; file < 2; ++file) merged.merge(ringprof::load_timers_json(path), "", true);
        std::string out = ringprof::write_timers_json(merged, ringprof::TimersFormat::List);
        benchmark::DoNotOptimize(out);
    }
    per_name(state);
    fs::remove_all(dir);
}
BENCHMARK(BM_MergeTimersManySiblings)
    ->Arg(62500)
    ->Arg(250000)
    ->Arg(1000000)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// What `ringprof flame trace.json --format folded` does on a trace whose spans have that many
// distinct names side by side.
void BM_FlameTraceManySiblings(benchmark::State& state) {
    const fs::path dir = scratch();
    const std::string path = (dir / "siblings_trace.json").string();
    {
        std::ofstream out(path);
        out << "[";
        for (std::int64_t i = 0; i < state.range(0); ++i) {
            out << (i ? ",\n" : "") << R"({"name":")" << name_of(i) << R"(","ph":"X","ts":)" << 10 * i
                << R"(,"dur":5,"pid":1,"tid":1})";
        }
        out << "]";
    }
    for (auto _ : state) {
        const ringprof::FlameProfile p = ringprof::load_flame_profile(path);
        std::string folded = ringprof::render_folded(p.merged);
        benchmark::DoNotOptimize(folded);
    }
    per_name(state);
    fs::remove_all(dir);
}
BENCHMARK(BM_FlameTraceManySiblings)
    ->Arg(62500)
    ->Arg(250000)
    ->Arg(1000000)
    ->Iterations(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
