// The system metrics of one interval, from the kernel's counters at its two ends: CPU time
// shares per core, memory in use, disk operations and bytes per second, network bytes per
// second. A counter that went backwards (a device replaced, a counter reset) gives no row for
// that interval rather than a huge or negative rate; a core, disk or interface present at one
// end only gives no row either.
#pragma once

#include <vector>

#include "system/proc_readings.hpp"
#include "system/system_metric.hpp"

namespace ringprof::detail {

// The counters at one instant, and the monotonic time they were read at.
struct HostReading {
    double seconds = 0;  // CLOCK_MONOTONIC
    std::vector<CpuTimes> cpus;
    MemoryInfo memory;
    std::vector<DiskCounters> disks;
    std::vector<NetCounters> nets;
};

// Per core: "cpu"/cpuN/CPUUtilization (busy share of the interval, %) and I/OWaitPercentage.
void append_cpu_metrics(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after,
                        std::vector<SystemMetric>& out);
// "memory"/MemoryUsedPercent/Memory: (total - available) / total, %.
void append_memory_metric(const MemoryInfo& memory, std::vector<SystemMetric>& out);
// Per disk: "i/o"/<disk>/ReadIOPS, WriteIOPS, ReadBytesPerSecond, WriteBytesPerSecond.
void append_disk_metrics(const std::vector<DiskCounters>& before, const std::vector<DiskCounters>& after,
                         double seconds, std::vector<SystemMetric>& out);
// Per interface: "network"/<interface>/ReceiveBytesPerSecond, TransmitBytesPerSecond.
void append_network_metrics(const std::vector<NetCounters>& before, const std::vector<NetCounters>& after,
                            double seconds, std::vector<SystemMetric>& out);

// All of the above for the interval from `before` to `after`.
std::vector<SystemMetric> host_metrics(const HostReading& before, const HostReading& after);

}  // namespace ringprof::detail
