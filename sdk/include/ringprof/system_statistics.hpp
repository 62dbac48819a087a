// Utilization statistics of the system metrics under <path>/system/ (written by ringprof's
// sampler or by SageMaker), as SageMaker Debugger's PandasFrameAnalysis computes them:
// - utilization: get_utilization_stats() — per resource (cpu, gpu, memory, i/o, network: the rows
//   whose Type contains the word, so "cpu" mixes CPUUtilization with I/OWaitPercentage as smdebug
//   does) and node, the mean, min, max, p50, p95 and p99 of the values, to the last bit;
// - utilization by dimension: the same split by Dimension as well (beyond smdebug: CPU time and
//   I/O wait apart);
// - device usage: get_device_usage_stats() — per cpu/gpu type and node, how many values fall in
//   90..100, 10..90 and 0..10 (both ends included, the first range that holds a value wins).
// See docs/system_metrics.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ringprof {

struct UtilizationStat {
    std::string resource;   // cpu, gpu, memory, i/o, network
    std::string dimension;  // empty in smdebug's table; set in the split by dimension
    std::string node;       // algo-<n>
    std::uint64_t count = 0;
    double mean = 0, min = 0, max = 0, p50 = 0, p95 = 0, p99 = 0;
};

struct DeviceUsage {
    std::string type;  // cpu or gpu
    std::string node;
    std::vector<std::uint64_t> counts;  // one per SystemStatistics::usage_ranges entry
};

struct SystemStatistics {
    std::vector<UtilizationStat> utilization;               // smdebug's rows, in its order
    std::vector<UtilizationStat> utilization_by_dimension;  // resource, node, dimension order
    std::vector<std::pair<int, int>> usage_ranges;          // those any value fell in, ascending
    std::vector<DeviceUsage> device_usage;                  // by type, then node
    std::uint64_t rows = 0;                                 // rows read (each once)
    std::vector<std::string> notes;                         // bad lines and files, named
};

// Throws std::runtime_error when <path>/system holds no system-metrics file at all.
SystemStatistics analyze_system_metrics(const std::string& path);

enum class StatsFormat { table, csv, json };
// smdebug's DataFrame as to_csv(index=False) writes it (csv), an aligned table, or JSON.
std::string render_utilization(const SystemStatistics& s, StatsFormat format, bool by_dimension = false);
std::string render_device_usage(const SystemStatistics& s, StatsFormat format);

}  // namespace ringprof
