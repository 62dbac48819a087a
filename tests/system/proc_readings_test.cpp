// The /proc parsers and the rates made from two readings, on fixture files with rates worked out
// by hand, and on this machine's live files.
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "process/file_text.hpp"
#include "system/host_rates.hpp"
#include "system/proc_readings.hpp"
#include "system/system_sampler.hpp"

namespace {

using namespace ringprof::detail;

const std::string kFixtures = std::string(RINGPROF_TEST_SOURCE_DIR) + "/system/fixtures";

std::string fixture(const std::string& name) {
    std::string text;
    const std::string problem = read_file_text(kFixtures + "/" + name, text);
    EXPECT_EQ(problem, "") << name;
    return text;
}

// "type/name/dimension" -> value
std::map<std::string, double> by_key(const std::vector<SystemMetric>& metrics) {
    std::map<std::string, double> out;
    for (const auto& m : metrics) {
        const std::string key = m.type + "/" + m.name + "/" + m.dimension;
        EXPECT_EQ(out.count(key), 0u) << "twice: " << key;
        out[key] = m.value;
    }
    return out;
}

TEST(ProcStat, KeepsEachCoreAndNotTheAggregateLine) {
    const auto cpus = parse_proc_stat(fixture("proc_before/stat"));
    ASSERT_EQ(cpus.size(), 2u);
    EXPECT_EQ(cpus[0].name, "cpu0");
    EXPECT_EQ(cpus[0].user, 600u);
    EXPECT_EQ(cpus[0].iowait, 100u);
    EXPECT_EQ(cpus[1].name, "cpu1");
    EXPECT_EQ(cpus[1].idle, 4100u);
}

TEST(ProcStat, RefusesACoreLineThatIsNotNumbers) {
    EXPECT_THROW(parse_proc_stat("cpu0 1 2 x 4\n"), std::runtime_error);
    EXPECT_THROW(parse_proc_stat("cpu0 1 2\n"), std::runtime_error);
    EXPECT_TRUE(parse_proc_stat("intr 1 2 3\ncpufreq 5\n").empty());  // not a core line
}

TEST(MemInfo, UsesAvailableMemoryOrFreeBuffersAndCachedWithoutIt) {
    const auto m = parse_meminfo(fixture("proc_after/meminfo"));
    EXPECT_EQ(m.total_kb, 8000000u);
    EXPECT_EQ(m.available_kb, 5000000u);
    const auto old_kernel = parse_meminfo("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n");
    EXPECT_EQ(old_kernel.available_kb, 400u);
    EXPECT_THROW(parse_meminfo("MemFree: 100 kB\n"), std::runtime_error);
}

TEST(DiskStats, KeepsWholeDisksOnly) {
    const auto disks = parse_diskstats(fixture("proc_before/diskstats"));
    ASSERT_EQ(disks.size(), 2u);
    EXPECT_EQ(disks[0].name, "sda");
    EXPECT_EQ(disks[0].reads, 1000u);
    EXPECT_EQ(disks[0].read_sectors, 20000u);
    EXPECT_EQ(disks[0].writes, 500u);
    EXPECT_EQ(disks[0].write_sectors, 8000u);
    EXPECT_EQ(disks[1].name, "nvme0n1");
    for (const char* whole : {"sda", "vdb", "xvda", "nvme0n1", "nvme10n2", "mmcblk0", "md0"})
        EXPECT_TRUE(is_whole_disk(whole)) << whole;
    for (const char* part : {"sda1", "nvme0n1p2", "mmcblk0p1", "loop3", "dm-0", "ram1", "sr0", "zram0"})
        EXPECT_FALSE(is_whole_disk(part)) << part;
    EXPECT_THROW(parse_diskstats("8 0 sda 1 2 3\n"), std::runtime_error);
}

TEST(NetDev, KeepsInterfacesButLoopback) {
    const auto nets = parse_net_dev(fixture("proc_before/net/dev"));
    ASSERT_EQ(nets.size(), 1u);
    EXPECT_EQ(nets[0].name, "eth0");
    EXPECT_EQ(nets[0].rx_bytes, 1000000u);
    EXPECT_EQ(nets[0].tx_bytes, 200000u);
    EXPECT_THROW(parse_net_dev("eth0: 1 2 3\n"), std::runtime_error);
}

TEST(HostRates, GiveSageMakersRowsWorkedOutByHand) {
    std::vector<std::string> problems;
    HostReading before = read_host(kFixtures + "/proc_before", problems);
    HostReading after = read_host(kFixtures + "/proc_after", problems);
    EXPECT_TRUE(problems.empty()) << problems.front();
    before.seconds = 10.0;
    after.seconds = 10.5;
    const auto rows = by_key(host_metrics(before, after));
    const std::map<std::string, double> expected = {
        // cpu0: 200 ticks, 110 busy, 50 waiting for I/O; cpu1: 230 ticks, 60 busy, 10 waiting.
        {"cpu/cpu0/CPUUtilization", 55.0},
        {"cpu/cpu0/I/OWaitPercentage", 25.0},
        {"cpu/cpu1/CPUUtilization", 26.09},
        {"cpu/cpu1/I/OWaitPercentage", 4.35},
        {"memory/MemoryUsedPercent/Memory", 37.5},
        // sda: 50 reads, 100 writes, 2048 and 1024 sectors of 512 bytes in half a second.
        {"i/o/sda/ReadIOPS", 100.0},
        {"i/o/sda/WriteIOPS", 200.0},
        {"i/o/sda/ReadBytesPerSecond", 2097152.0},
        {"i/o/sda/WriteBytesPerSecond", 1048576.0},
        {"i/o/nvme0n1/ReadIOPS", 0.0},
        {"i/o/nvme0n1/WriteIOPS", 0.0},
        {"i/o/nvme0n1/ReadBytesPerSecond", 0.0},
        {"i/o/nvme0n1/WriteBytesPerSecond", 0.0},
        {"network/eth0/ReceiveBytesPerSecond", 1000000.0},
        {"network/eth0/TransmitBytesPerSecond", 100000.0},
    };
    EXPECT_EQ(rows, expected);
}

TEST(HostRates, GiveNoRowForACounterThatWentBackOrAThingPresentAtOneEndOnly) {
    std::vector<std::string> problems;
    HostReading before = read_host(kFixtures + "/proc_after", problems);  // the readings swapped
    HostReading after = read_host(kFixtures + "/proc_before", problems);
    after.seconds = before.seconds + 0.5;
    after.cpus.push_back(CpuTimes{"cpu2", 1, 0, 1, 1, 0, 0, 0, 0});  // came online
    const auto rows = by_key(host_metrics(before, after));
    for (const auto& [key, value] : rows) {
        EXPECT_TRUE(key.rfind("memory/", 0) == 0 || key.rfind("i/o/nvme0n1/", 0) == 0) << key << " = " << value;
    }
    EXPECT_EQ(rows.count("memory/MemoryUsedPercent/Memory"), 1u);
}

TEST(ReadHost, NamesAMissingFileAndKeepsTheOtherParts) {
    std::vector<std::string> problems;
    const HostReading r = read_host(kFixtures + "/proc_before/net", problems);  // only "dev" is there
    EXPECT_TRUE(r.cpus.empty());
    ASSERT_EQ(problems.size(), 4u);
    EXPECT_NE(problems[0].find("proc_before/net/stat"), std::string::npos) << problems[0];
}

TEST(ReadHost, ReadsThisMachinesLiveFiles) {
    std::vector<std::string> problems;
    const HostReading r = read_host("/proc", problems);
    EXPECT_TRUE(problems.empty()) << problems.front();
    ASSERT_FALSE(r.cpus.empty());
    EXPECT_LE(r.cpus.size(), static_cast<std::size_t>(::sysconf(_SC_NPROCESSORS_CONF)));
    EXPECT_GT(r.memory.total_kb, 0u);
    EXPECT_LE(r.memory.available_kb, r.memory.total_kb);
    HostReading later = read_host("/proc", problems);
    later.seconds = r.seconds + 0.5;
    const auto rows = host_metrics(r, later);
    std::size_t cpu_rows = 0;
    for (const auto& m : rows) {
        EXPECT_GE(m.value, 0.0) << m.name << " " << m.dimension;
        if (m.type == "cpu") {
            ++cpu_rows;
            EXPECT_LE(m.value, 100.0) << m.name << " " << m.dimension;
        }
    }
    EXPECT_LE(cpu_rows, 2 * r.cpus.size());  // cores idle for the whole gap give no rows
}

}  // namespace
