// The sampler thread end to end: live /proc and the stand-in NVML, files read back; one sampler
// per node and folder across processes; the session's settings.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "bounded_process.hpp"
#include "ringprof/config.hpp"
#include "ringprof/session.hpp"
#include "process/run_claim.hpp"
#include "system/system_sampler.hpp"
#include "temp_dir.hpp"

namespace {

using namespace ringprof::detail;
namespace fs = std::filesystem;

// Every row of every system file under `dir`, as "type/name/dimension"; checks each line parses
// and names `node`.
std::multiset<std::string> rows_under(const fs::path& dir, const std::string& node, int* files = nullptr) {
    std::multiset<std::string> rows;
    simdjson::dom::parser parser;
    if (files) *files = 0;
    if (!fs::exists(dir / "system")) return rows;
    for (const auto& entry : fs::recursive_directory_iterator(dir / "system")) {
        if (!entry.is_regular_file()) continue;
        EXPECT_EQ(entry.path().parent_path().parent_path().filename(), "incremental") << entry.path();
        EXPECT_EQ(entry.path().filename().string().substr(10), "." + node + ".json") << entry.path();
        if (files) ++*files;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            simdjson::dom::element row;
            EXPECT_EQ(parser.parse(line).get(row), simdjson::SUCCESS) << line;
            if (row.is_null()) continue;
            EXPECT_EQ(std::string_view(row["NodeId"]), node);
            rows.insert(std::string(std::string_view(row["Type"])) + "/" + std::string(std::string_view(row["Name"])) +
                        "/" + std::string(std::string_view(row["Dimension"])));
        }
    }
    return rows;
}

// Waits, however loaded the machine, until `sampler` wrote `n` samples (a minute at most).
bool wait_for_samples(const SystemSampler& sampler, std::uint64_t n) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (sampler.samples_written() < n) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

TEST(SystemSampler, WritesCoresMemoryAndEachGpuEveryInterval) {
    ringprof::testing::TempDir dir;
    ::setenv("FAKE_NVML_DEVICES", "2", 1);
    SystemSamplerOptions options;
    options.output_dir = dir.str();
    options.node = "algo-3";
    options.interval_ms = 100;
    options.nvml_library = RINGPROF_FAKE_NVML;
    auto sampler = SystemSampler::start(options, nullptr);
    ASSERT_NE(sampler, nullptr);
    ASSERT_TRUE(wait_for_samples(*sampler, 3));
    sampler->stop();
    ::unsetenv("FAKE_NVML_DEVICES");
    const std::uint64_t samples = sampler->samples_written();
    const auto rows = rows_under(dir.path(), "algo-3");
    EXPECT_EQ(rows.count("gpu/gpu0/GPUUtilization"), samples);
    EXPECT_EQ(rows.count("gpu/gpu1/GPUMemoryUtilization"), samples);
    EXPECT_EQ(rows.count("memory/MemoryUsedPercent/Memory"), samples);
    EXPECT_EQ(rows.count("gpu/gpu2/GPUUtilization"), 0u);
    std::size_t cpu0 = rows.count("cpu/cpu0/CPUUtilization");
    EXPECT_GE(cpu0, 1u);  // a core idle for a whole 100 ms interval (offline) may give none
    EXPECT_LE(cpu0, samples);
}

TEST(SystemSampler, StopsAtOnceWhateverTheInterval) {
    ringprof::testing::TempDir dir;
    SystemSamplerOptions options;
    options.output_dir = dir.str();
    options.interval_ms = 60000;
    options.nvml_library = "libringprof-no-such-nvml.so.1";
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            auto sampler = SystemSampler::start(options, nullptr);
            if (sampler == nullptr) return 2;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            const auto t0 = std::chrono::steady_clock::now();
            sampler->stop();
            return std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30) ? 0 : 3;
        },
        ringprof::testing::within(std::chrono::seconds(50)));
    EXPECT_TRUE(outcome.finished) << "stop() waited for the interval";
    EXPECT_EQ(outcome.exit_code, 0);
}

// Record locks are per process, so every claimant here is a process of its own; and no process
// forks while it has a thread (ThreadSanitizer refuses that), so a sampler runs only in a child.
TEST(SystemSampler, IsOnePerNodeAndFolderAcrossProcesses) {
    ringprof::testing::TempDir dir;
    SystemSamplerOptions options;
    options.output_dir = dir.str();
    options.interval_ms = 100;
    options.nvml_library = "libringprof-no-such-nvml.so.1";
    const std::string claim = ".system_metrics.algo-1.ringprof_claim";
    // A running sampler holds its node's claim: another process cannot take it.
    const std::string ready = (dir.path() / "ready").string(), done = (dir.path() / "done").string();
    const pid_t holder = ::fork();
    if (holder == 0) {
        auto sampler = SystemSampler::start(options, nullptr);
        if (sampler == nullptr) ::_exit(1);
        std::ofstream(ready) << "";
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        while (!fs::exists(done) && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        sampler->stop();
        ::_exit(0);
    }
    ASSERT_GT(holder, 0);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!fs::exists(ready) && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    RunClaim probe;
    EXPECT_FALSE(probe.claim_alone(dir.str(), claim)) << "the sampler's claim was free while it ran";
    std::ofstream(done) << "";
    int status = 0;
    ASSERT_EQ(::waitpid(holder, &status, 0), holder);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the first sampler did not start";
    // Held by another process, the claim keeps a second sampler of that node from starting, not
    // one of another node.
    RunClaim held;
    ASSERT_TRUE(held.claim_alone(dir.str(), claim));
    const auto second = ringprof::testing::run_bounded([&] {
        if (SystemSampler::start(options, nullptr) != nullptr) return 1;
        SystemSamplerOptions other_node = options;
        other_node.node = "algo-2";
        return SystemSampler::start(other_node, nullptr) != nullptr ? 0 : 2;
    });
    EXPECT_TRUE(second.finished);
    EXPECT_EQ(second.exit_code, 0) << "1: a second sampler of algo-1 started; 2: algo-2 could not start";
    held.release();
    const auto third =
        ringprof::testing::run_bounded([&] { return SystemSampler::start(options, nullptr) != nullptr ? 0 : 1; });
    EXPECT_EQ(third.exit_code, 0) << "the claim stayed taken after its holder let it go";
}

// Runs a sampler with `library` as NVML in a child until it wrote 3 samples; returns its stderr.
std::string stderr_of_sampling(const ringprof::testing::TempDir& dir, const std::string& library,
                               const std::string& device_node) {
    const std::string err = (dir.path() / "stderr.txt").string();
    SystemSamplerOptions options;
    options.output_dir = (dir.path() / "out").string();
    fs::create_directories(options.output_dir);
    options.interval_ms = 100;
    options.nvml_library = library;
    options.nvidia_device_node = device_node;
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            auto sampler = SystemSampler::start(options, nullptr);
            if (sampler == nullptr || !wait_for_samples(*sampler, 3)) return 1;
            sampler->stop();
            return 0;
        },
        ringprof::testing::stderr_to(err));
    EXPECT_EQ(outcome.exit_code, 0);
    const auto rows = rows_under(options.output_dir, "algo-1");
    for (const auto& r : rows) EXPECT_NE(r.rfind("gpu/", 0), 0u) << r;
    EXPECT_GE(rows.count("memory/MemoryUsedPercent/Memory"), 3u);
    return ringprof::testing::read_text(err);
}

TEST(SystemSampler, SaysOnceWhyThereAreNoGpuRowsWhenTheLibraryIsThereButUnusable) {
    ringprof::testing::TempDir dir;
    const std::string text = stderr_of_sampling(dir, RINGPROF_FAKE_NVML_EMPTY, "/nonexistent/nvidiactl");
    const std::string said = "ringprof: system metrics: no GPU rows: ";
    EXPECT_NE(text.find(said), std::string::npos) << text;
    EXPECT_NE(text.find("has no nvmlInit_v2"), std::string::npos) << text;
    EXPECT_EQ(text.find(said), text.rfind(said)) << text;
}

TEST(SystemSampler, SaysOnceWhyThereAreNoGpuRowsWhenTheDriversDeviceIsThereButNotItsLibrary) {
    ringprof::testing::TempDir dir;
    const std::string device_node = (dir.path() / "nvidiactl").string();
    { std::ofstream(device_node) << ""; }
    const std::string text = stderr_of_sampling(dir, "libringprof-no-such-nvml.so.1", device_node);
    const std::string said = "ringprof: system metrics: no GPU rows: no NVIDIA driver library";
    EXPECT_NE(text.find(said), std::string::npos) << text;
    EXPECT_EQ(text.find(said), text.rfind(said)) << text;
}

TEST(SystemSampler, SaysNothingOnAMachineWithoutAnyNvidiaDriver) {
    ringprof::testing::TempDir dir;
    EXPECT_EQ(stderr_of_sampling(dir, "libringprof-no-such-nvml.so.1", "/nonexistent/nvidiactl"), "");
}

TEST(SystemSettings, AreReadFromTheEnvironmentAndNodeRankFromLaunchers) {
    const auto outcome = ringprof::testing::run_bounded([] {
        for (const char* n : {"RINGPROF_SYSTEM_METRICS", "RINGPROF_SYSTEM_INTERVAL_MS", "RINGPROF_NODE_RANK",
                              "SM_CURRENT_HOST", "NODE_RANK"})
            ::unsetenv(n);
        ringprof::Config c = ringprof::Config::from_environment();
        if (!c.system_metrics || c.system_interval_ms != 500 || c.node_rank != 0) return 1;
        ::setenv("RINGPROF_SYSTEM_METRICS", "0", 1);
        ::setenv("RINGPROF_SYSTEM_INTERVAL_MS", "99", 1);  // below SageMaker's 100: refused
        ::setenv("NODE_RANK", "4", 1);
        c = ringprof::Config::from_environment();
        if (c.system_metrics || c.system_interval_ms != 500 || c.node_rank != 4) return 2;
        ::setenv("RINGPROF_SYSTEM_INTERVAL_MS", "60000", 1);
        ::setenv("SM_CURRENT_HOST", "algo-3", 1);  // SageMaker's name wins over NODE_RANK
        c = ringprof::Config::from_environment();
        if (c.system_interval_ms != 60000 || c.node_rank != 2) return 3;
        ::setenv("RINGPROF_NODE_RANK", "7", 1);  // ringprof's own wins over both
        if (ringprof::Config::from_environment().node_rank != 7) return 4;
        ::setenv("RINGPROF_NODE_RANK", "-1", 1);  // refused, and the launchers are not asked
        if (ringprof::Config::from_environment().node_rank != 0) return 5;
        return 0;
    });
    EXPECT_EQ(outcome.exit_code, 0) << "the step that failed";
}

TEST(SystemSampler, RunsWithTheSessionIntoItsOutputFolder) {
    ringprof::testing::TempDir dir;
    const auto outcome = ringprof::testing::run_bounded([&] {
        ringprof::Config c;
        c.output_dir = dir.str();
        c.run_id = "sampled";
        c.system_interval_ms = 100;
        c.node_rank = 1;
        {
            ringprof::Session session(c);
            // Until a sample is in a file, however loaded the machine (the bounded run's deadline
            // ends a sampler that never writes).
            while (rows_under(dir.path(), "algo-2").count("memory/MemoryUsedPercent/Memory") < 2)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ringprof::Config off = c;
        off.output_dir = dir.str() + "/off";
        off.system_metrics = false;
        {
            ringprof::Session session(off);
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
        return 0;
    });
    ASSERT_EQ(outcome.exit_code, 0);
    int files = 0;
    EXPECT_FALSE(rows_under(dir.path(), "algo-2", &files).empty());
    EXPECT_GE(files, 1);
    EXPECT_FALSE(fs::exists(dir.path() / "off" / "system"));
}

}  // namespace
