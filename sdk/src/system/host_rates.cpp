#include "system/host_rates.hpp"

#include <cmath>

namespace ringprof::detail {

namespace {

// The entry of `before` with `name`, or null. Lists are short (cores, disks, interfaces) and in
// the same order at both ends, so the same index is tried first.
template <typename T>
const T* same_name(const std::vector<T>& before, std::size_t index, const std::string& name) {
    if (index < before.size() && before[index].name == name) return &before[index];
    for (const T& b : before)
        if (b.name == name) return &b;
    return nullptr;
}

// Two decimals, as SageMaker's files have them (1.36, 97.5).
double rounded(double v) { return std::round(v * 100.0) / 100.0; }

bool went_back(std::uint64_t before, std::uint64_t after) { return after < before; }

}  // namespace

void append_cpu_metrics(const std::vector<CpuTimes>& before, const std::vector<CpuTimes>& after,
                        std::vector<SystemMetric>& out) {
    for (std::size_t i = 0; i < after.size(); ++i) {
        const CpuTimes& a = after[i];
        const CpuTimes* b = same_name(before, i, a.name);
        if (b == nullptr || went_back(b->total(), a.total()) || went_back(b->busy(), a.busy()) ||
            went_back(b->iowait, a.iowait))
            continue;
        const double ticks = static_cast<double>(a.total() - b->total());
        if (ticks <= 0) continue;  // a core that was offline for the whole interval
        out.push_back(
            {"cpu", a.name, "CPUUtilization", rounded(100.0 * static_cast<double>(a.busy() - b->busy()) / ticks)});
        out.push_back(
            {"cpu", a.name, "I/OWaitPercentage", rounded(100.0 * static_cast<double>(a.iowait - b->iowait) / ticks)});
    }
}

void append_memory_metric(const MemoryInfo& memory, std::vector<SystemMetric>& out) {
    if (memory.total_kb == 0) return;
    const double used = static_cast<double>(memory.total_kb - memory.available_kb);
    out.push_back(
        {"memory", "MemoryUsedPercent", "Memory", rounded(100.0 * used / static_cast<double>(memory.total_kb))});
}

void append_disk_metrics(const std::vector<DiskCounters>& before, const std::vector<DiskCounters>& after,
                         double seconds, std::vector<SystemMetric>& out) {
    if (!(seconds > 0)) return;
    for (std::size_t i = 0; i < after.size(); ++i) {
        const DiskCounters& a = after[i];
        const DiskCounters* b = same_name(before, i, a.name);
        if (b == nullptr || went_back(b->reads, a.reads) || went_back(b->writes, a.writes) ||
            went_back(b->read_sectors, a.read_sectors) || went_back(b->write_sectors, a.write_sectors))
            continue;
        const auto rate = [&](std::uint64_t from, std::uint64_t to, double scale) {
            return rounded(static_cast<double>(to - from) * scale / seconds);
        };
        out.push_back({"i/o", a.name, "ReadIOPS", rate(b->reads, a.reads, 1)});
        out.push_back({"i/o", a.name, "WriteIOPS", rate(b->writes, a.writes, 1)});
        out.push_back({"i/o", a.name, "ReadBytesPerSecond", rate(b->read_sectors, a.read_sectors, 512)});
        out.push_back({"i/o", a.name, "WriteBytesPerSecond", rate(b->write_sectors, a.write_sectors, 512)});
    }
}

void append_network_metrics(const std::vector<NetCounters>& before, const std::vector<NetCounters>& after,
                            double seconds, std::vector<SystemMetric>& out) {
    if (!(seconds > 0)) return;
    for (std::size_t i = 0; i < after.size(); ++i) {
        const NetCounters& a = after[i];
        const NetCounters* b = same_name(before, i, a.name);
        if (b == nullptr || went_back(b->rx_bytes, a.rx_bytes) || went_back(b->tx_bytes, a.tx_bytes)) continue;
        out.push_back({"network", a.name, "ReceiveBytesPerSecond",
                       rounded(static_cast<double>(a.rx_bytes - b->rx_bytes) / seconds)});
        out.push_back({"network", a.name, "TransmitBytesPerSecond",
                       rounded(static_cast<double>(a.tx_bytes - b->tx_bytes) / seconds)});
    }
}

std::vector<SystemMetric> host_metrics(const HostReading& before, const HostReading& after) {
    std::vector<SystemMetric> out;
    const double seconds = after.seconds - before.seconds;
    append_cpu_metrics(before.cpus, after.cpus, out);
    append_memory_metric(after.memory, out);
    append_disk_metrics(before.disks, after.disks, seconds, out);
    append_network_metrics(before.nets, after.nets, seconds, out);
    return out;
}

}  // namespace ringprof::detail
