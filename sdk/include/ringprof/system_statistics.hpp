// Utilization statistics of the system metrics under <path>/system/ (written by ringprof's
// sampler or by SageMaker), as SageMaker Debugger's PandasFrameAnalysis computes them:
// - utilization: get_utilization_stats() — per resource (cpu, gpu, memory, i/o, network: the rows
//   whose Type contains the word, so "cpu" mixes CPUUtilization with I/OWaitPercentage as smdebug
//   does) and node, the mean, min, max, p50, p95 and p99 of the values, to the last bit;
// - utilization by dimension: the same split by Dimension as well (beyond smdebug: CPU time and
//   I/O wait apart);
// - device usage: get_device_usage_stats() — per cpu/gpu type and node, how many values fall in
//   90..100, 10..90 and 0..10 (both ends included, the first range that holds a value wins).
// - utilization by training phase: get_utilization_stats(by=TRAINING_PHASE) — per resource,
//   phase (get_training_phase_intervals over the framework timelines) and node;
// - job statistics: get_job_statistics() — the job's span from the system samples, the training
//   loop's from step 0 to the last framework event, and the shares of each.
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
    std::string phase;      // set in the split by training phase
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
    std::vector<UtilizationStat> utilization_by_phase;      // resource, phase, node order (when asked)
    std::vector<std::pair<int, int>> usage_ranges;          // those any value fell in, ascending
    std::vector<DeviceUsage> device_usage;                  // by type, then node
    std::uint64_t rows = 0;                                 // rows read (each once)
    std::vector<std::string> notes;                         // bad lines and files, named
};

// Throws std::runtime_error when <path>/system holds no system-metrics file at all, and with
// `by_phase` when <path> has no framework timelines or no training phase in them.
SystemStatistics analyze_system_metrics(const std::string& path, bool by_phase = false);

// get_job_statistics(): times in microseconds, the moments as smdebug prints them (UTC,
// "%Y-%m-%dT%H:%M:%S:%f"). smdebug's own definitions, kept: `initialization` is step 0's start
// counted from the first system file's minute (not from the first sample), and the training loop
// ends at the last framework event, which may be after the last sample (a negative finalization).
struct JobStatistics {
    std::string start_time, end_time;  // the first and last system sample
    long double job_duration = 0;      // last sample - first sample
    std::string training_loop_start;   // step 0's start (Step:ModeKeys.TRAIN or GLOBAL)
    std::string training_loop_end;     // the latest end of any framework event
    long double training_loop_duration = 0, initialization = 0, finalization = 0;
    double initialization_pct = 0, training_loop_pct = 0, finalization_pct = 0;
    bool floats = false;  // some time was written as a fraction: smdebug's durations are floats then
    std::vector<std::string> notes;
};
// Throws std::runtime_error when <path> has no system files, no framework timelines, or no step 0
// of Step:ModeKeys.TRAIN or Step:ModeKeys.GLOBAL (where smdebug raises a KeyError).
JobStatistics analyze_job(const std::string& path);

enum class StatsFormat { table, csv, json };
// smdebug's DataFrame as to_csv(index=False) writes it (csv), an aligned table, or JSON.
std::string render_utilization(const SystemStatistics& s, StatsFormat format, bool by_dimension = false);
std::string render_device_usage(const SystemStatistics& s, StatsFormat format);
// Columns Resource,Training_phase,nodeID,utilization_mean,... as smdebug's DataFrame has them.
std::string render_utilization_by_phase(const SystemStatistics& s, StatsFormat format);
// csv: one row under smdebug's keys (start_time, ..., finalization_%); json: an object of them.
std::string render_job(const JobStatistics& j, StatsFormat format);

}  // namespace ringprof
