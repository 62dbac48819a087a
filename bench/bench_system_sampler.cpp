// The system-metrics sampler's cost per sample, as a share of one core at the default 500 ms
// interval: reading /proc (stat, meminfo, diskstats, net/dev), the rates from two readings, the
// JSON lines and their append to the minute's file. NVML is not included (no GPU here); on a GPU
// machine it adds two driver calls per device. The "core_share_at_500ms" counter is the sample's
// time over 500 ms: the budget is 0.5 % (0.005).
#include <benchmark/benchmark.h>

#include <time.h>

#include <filesystem>
#include <string>
#include <vector>

#include "system/host_rates.hpp"
#include "system/metric_files.hpp"
#include "system/system_sampler.hpp"

namespace {

namespace d = ringprof::detail;

double cpu_seconds() {
    struct timespec ts {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void BM_SystemSample(benchmark::State& state) {
    const std::string dir = (std::filesystem::temp_directory_path() / "ringprof_bench_system").string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    d::SystemMetricFiles files(dir, "algo-1");
    std::vector<std::string> problems;
    d::HostReading before = d::read_host("/proc", problems);
    double timestamp = 1591748100.0;
    std::size_t rows = 0;
    const double cpu_start = cpu_seconds();
    for (auto _ : state) {
        d::SystemSample sample;
        sample.timestamp = timestamp;
        timestamp += 0.0001;  // the same minute's file throughout (a new file each minute is rarer)
        d::HostReading after = d::read_host("/proc", problems);
        after.seconds = before.seconds + 0.5;  // an interval's rates, whatever the loop's speed
        sample.metrics = d::host_metrics(before, after);
        before = std::move(after);
        rows = sample.metrics.size();
        files.write(sample);
    }
    const double per_sample = (cpu_seconds() - cpu_start) / static_cast<double>(state.iterations());
    files.close();
    std::filesystem::remove_all(dir);
    state.counters["rows_per_sample"] = static_cast<double>(rows);
    state.counters["cpu_us_per_sample"] = per_sample * 1e6;
    state.counters["core_share_at_500ms"] = per_sample / 0.5;
}
BENCHMARK(BM_SystemSample)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
