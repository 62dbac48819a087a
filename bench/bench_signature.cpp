// The cost of a signature scope (PROF_FUNCTION_SIG with two vectors, and with a user tensor)
// against a plain PROF_SCOPE and against the bare pair of clock reads every scope makes.
// After the runs it prints each marker's cost as a ratio to the other two.
//
// The rings are large and drained in the background; a row whose "dropped" counter is not zero
// measured refused scopes (a counter bump), not recording, and says so.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "ringprof/ringprof.hpp"

namespace bench_sig {
struct Tensor {
    std::size_t rows, cols;
};
}  // namespace bench_sig

template <>
struct ringprof::signature_traits<bench_sig::Tensor> {
    static constexpr const char* name = "Tensor";
    using element_type = float;
    static constexpr std::size_t max_rank = 2;
    static std::size_t rank(const bench_sig::Tensor&) noexcept { return 2; }
    static std::uint64_t dim(const bench_sig::Tensor& t, std::size_t i) noexcept { return i == 0 ? t.rows : t.cols; }
};

namespace {

void BM_BareTscPair(benchmark::State& state) {
    for (auto _ : state) {
        std::uint64_t a = ringprof::detail::read_ticks();
        benchmark::DoNotOptimize(a);
        std::uint64_t b = ringprof::detail::read_ticks();
        benchmark::DoNotOptimize(b);
    }
}

template <class F>
void run_marker(benchmark::State& state, F&& body) {
    const std::uint64_t dropped_before = ringprof::dropped_scopes();
    for (auto _ : state) body();
    state.counters["dropped"] = static_cast<double>(ringprof::dropped_scopes() - dropped_before);
}

void BM_ProfScope(benchmark::State& state) {
    run_marker(state, [] {
        PROF_SCOPE("plain");
        benchmark::ClobberMemory();
    });
}

void BM_SignatureScopeTwoVectors(benchmark::State& state) {
    const std::vector<float> a(16), b(16);
    run_marker(state, [&] {
        PROF_FUNCTION_SIG(a, b);
        benchmark::ClobberMemory();
    });
}

void BM_SignatureScopeTensor(benchmark::State& state) {
    const bench_sig::Tensor t{32, 64};
    const int n = 3;
    run_marker(state, [&] {
        PROF_FUNCTION_SIG(t, n);
        benchmark::ClobberMemory();
    });
}

BENCHMARK(BM_BareTscPair);
BENCHMARK(BM_ProfScope);
BENCHMARK(BM_SignatureScopeTwoVectors);
BENCHMARK(BM_SignatureScopeTensor);

// Keeps the console output and remembers each benchmark's time per iteration for the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        // Wall time: Google Benchmark's CPU time is the whole process's, so it would charge the
        // drainer thread's work to the marker. With --benchmark_repetitions the median is used.
        for (const Run& r : runs) {
            const std::string& name = r.run_name.function_name;
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
                ns_[name] = r.GetAdjustedRealTime();
                medians_[name] = true;
            } else if (r.run_type == Run::RT_Iteration && r.iterations > 0 && !medians_[name]) {
                ns_[name] = r.GetAdjustedRealTime();
            }
        }
    }
    double ns(const std::string& name) const {
        const auto it = ns_.find(name);
        return it == ns_.end() ? 0.0 : it->second;
    }

private:
    std::map<std::string, double> ns_;
    std::map<std::string, bool> medians_;
};

}  // namespace

int main(int argc, char** argv) {
    ringprof::Config config;
    config.output_dir = "./ringprof_bench_out";
    config.run_id = "bench_signature";
    config.backends = {"stats"};
    config.ring_bytes = std::size_t{64} << 20;  // room for the drainer to fall behind briefly
    ringprof::Session session(config);

    {
        PROF_SCOPE("warm_up");  // registers this thread's ring outside every measurement
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);

    const double bare = reporter.ns("BM_BareTscPair");
    const double plain = reporter.ns("BM_ProfScope");
    const double sig = reporter.ns("BM_SignatureScopeTwoVectors");
    const double tensor = reporter.ns("BM_SignatureScopeTensor");
    if (bare > 0 && plain > 0 && sig > 0 && tensor > 0) {
        std::printf("\nratios (wall time per iteration):\n");
        std::printf("  PROF_SCOPE / bare TSC pair                 %6.2f\n", plain / bare);
        std::printf("  PROF_FUNCTION_SIG(2 vectors) / PROF_SCOPE  %6.2f\n", sig / plain);
        std::printf("  PROF_FUNCTION_SIG(2 vectors) / bare pair   %6.2f\n", sig / bare);
        std::printf("  PROF_FUNCTION_SIG(tensor, int) / PROF_SCOPE %5.2f\n", tensor / plain);
    }
    benchmark::Shutdown();
    return 0;
}
