#include "system/proc_readings.hpp"

#include <charconv>
#include <stdexcept>

namespace ringprof::detail {

namespace {

// The text's lines, without their '\n'.
template <typename Each>
void for_each_line(std::string_view text, Each&& each) {
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        each(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

// Splits a line on runs of spaces and tabs.
std::vector<std::string_view> fields_of(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

[[noreturn]] void refuse(const char* file, std::string_view line, const char* problem) {
    throw std::runtime_error(std::string(file) + ": " + problem + " in line '" + std::string(line.substr(0, 200)) +
                             "'");
}

std::uint64_t number(std::string_view s, const char* file, std::string_view line) {
    std::uint64_t v = 0;
    const auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (err != std::errc() || end != s.data() + s.size()) refuse(file, line, "not a whole number");
    return v;
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::vector<CpuTimes> parse_proc_stat(std::string_view text) {
    std::vector<CpuTimes> cpus;
    for_each_line(text, [&](std::string_view line) {
        const auto f = fields_of(line);
        if (f.empty() || !starts_with(f[0], "cpu") || !all_digits(f[0].substr(3))) return;
        // user nice system idle since 2.4; iowait irq softirq since 2.6; steal since 2.6.11.
        if (f.size() < 5) refuse("/proc/stat", line, "fewer than 4 times");
        CpuTimes c;
        c.name = std::string(f[0]);
        std::uint64_t* const slots[] = {&c.user, &c.nice, &c.system, &c.idle, &c.iowait, &c.irq, &c.softirq, &c.steal};
        for (std::size_t i = 0; i < 8 && i + 1 < f.size(); ++i) *slots[i] = number(f[i + 1], "/proc/stat", line);
        cpus.push_back(std::move(c));
    });
    return cpus;
}

MemoryInfo parse_meminfo(std::string_view text) {
    MemoryInfo m;
    bool has_available = false;
    std::uint64_t free = 0, buffers = 0, cached = 0;
    for_each_line(text, [&](std::string_view line) {
        const auto f = fields_of(line);
        if (f.size() < 2) return;
        const auto value = [&] { return number(f[1], "/proc/meminfo", line); };
        if (f[0] == "MemTotal:") {
            m.total_kb = value();
        } else if (f[0] == "MemAvailable:") {
            m.available_kb = value();
            has_available = true;
        } else if (f[0] == "MemFree:") {
            free = value();
        } else if (f[0] == "Buffers:") {
            buffers = value();
        } else if (f[0] == "Cached:") {
            cached = value();
        }
    });
    if (m.total_kb == 0) throw std::runtime_error("/proc/meminfo: no MemTotal line");
    if (!has_available) m.available_kb = free + buffers + cached;
    if (m.available_kb > m.total_kb) m.available_kb = m.total_kb;
    return m;
}

bool is_whole_disk(std::string_view name) {
    for (const char* virtual_prefix : {"loop", "ram", "dm-", "zram", "sr", "fd"})
        if (starts_with(name, virtual_prefix)) return false;
    if (starts_with(name, "nvme") || starts_with(name, "mmcblk")) {
        return name.find('p', name.find_first_of("0123456789")) == std::string_view::npos;  // nvme0n1p1: a partition
    }
    if (starts_with(name, "md")) return true;
    // sda, vda, xvda, hda: letters only; sda1 is a partition.
    return !name.empty() && (name.back() < '0' || name.back() > '9');
}

std::vector<DiskCounters> parse_diskstats(std::string_view text) {
    std::vector<DiskCounters> disks;
    for_each_line(text, [&](std::string_view line) {
        const auto f = fields_of(line);
        if (f.empty()) return;
        // major minor name reads merged sectors ms writes merged sectors ms ...
        if (f.size() < 14) refuse("/proc/diskstats", line, "fewer than 14 fields");
        if (!is_whole_disk(f[2])) return;
        DiskCounters d;
        d.name = std::string(f[2]);
        d.reads = number(f[3], "/proc/diskstats", line);
        d.read_sectors = number(f[5], "/proc/diskstats", line);
        d.writes = number(f[7], "/proc/diskstats", line);
        d.write_sectors = number(f[9], "/proc/diskstats", line);
        disks.push_back(std::move(d));
    });
    return disks;
}

std::vector<NetCounters> parse_net_dev(std::string_view text) {
    std::vector<NetCounters> nets;
    for_each_line(text, [&](std::string_view line) {
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) return;  // the two header lines
        const auto name_fields = fields_of(line.substr(0, colon));
        const auto f = fields_of(line.substr(colon + 1));
        if (name_fields.size() != 1) refuse("/proc/net/dev", line, "no interface name");
        // Receive: bytes packets errs drop fifo frame compressed multicast; then transmit: bytes ...
        if (f.size() < 16) refuse("/proc/net/dev", line, "fewer than 16 counters");
        if (name_fields[0] == "lo") return;
        NetCounters n;
        n.name = std::string(name_fields[0]);
        n.rx_bytes = number(f[0], "/proc/net/dev", line);
        n.tx_bytes = number(f[8], "/proc/net/dev", line);
        nets.push_back(std::move(n));
    });
    return nets;
}

}  // namespace ringprof::detail
