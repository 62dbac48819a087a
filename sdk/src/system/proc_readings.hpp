// The kernel's counters behind the system metrics, parsed from the text of /proc/stat,
// /proc/meminfo, /proc/diskstats and /proc/net/dev. The parsers take the file's text, not a path,
// so the same code reads fixture files in the tests and the live files in the sampler.
//
// Each parser keeps what it understands and skips lines it does not (a kernel may add fields or
// lines); a line that claims to be a record of its kind but cannot be read makes the whole text
// refused (std::runtime_error naming the line), since a half-read reading would give wrong rates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringprof::detail {

// One "cpuN" line of /proc/stat, in clock ticks since boot. The aggregate "cpu" line is not
// kept: SageMaker's files (what smdebug reads) have one row per core only.
struct CpuTimes {
    std::string name;  // "cpu0", "cpu1", ...
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    std::uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
    // Time the core did work: everything but idle and I/O wait (guest time is inside user).
    std::uint64_t busy() const { return total() - idle - iowait; }
};
std::vector<CpuTimes> parse_proc_stat(std::string_view text);

// /proc/meminfo, in kB. MemAvailable (since Linux 3.14) is what the kernel says a program could
// still get; without it, free + buffers + cached.
struct MemoryInfo {
    std::uint64_t total_kb = 0, available_kb = 0;
};
MemoryInfo parse_meminfo(std::string_view text);

// One whole disk of /proc/diskstats (partitions and virtual devices are skipped: their I/O is a
// disk's I/O counted again). Sectors are 512 bytes whatever the device's own sector size.
struct DiskCounters {
    std::string name;
    std::uint64_t reads = 0, read_sectors = 0, writes = 0, write_sectors = 0;
};
std::vector<DiskCounters> parse_diskstats(std::string_view text);
// Whether `name` is a whole disk rather than a partition or a virtual device ("loop", "ram",
// "dm-", "zram", "sr"): "sda", "nvme0n1", "vda", "xvda", "mmcblk0", "md0".
bool is_whole_disk(std::string_view name);

// One interface of /proc/net/dev; the loopback "lo" is skipped (it is no network traffic).
struct NetCounters {
    std::string name;
    std::uint64_t rx_bytes = 0, tx_bytes = 0;
};
std::vector<NetCounters> parse_net_dev(std::string_view text);

}  // namespace ringprof::detail
