// The system-metrics sampler: a quiet thread of its own beside the drainer (never on the marker
// path) that reads the host's counters every interval and appends a sample to the node's minute
// file (system/metric_files.hpp). What one sample holds is in system/host_rates.hpp and
// system/nvml_gpus.hpp.
//
// One sampler per node and output folder: processes of one run on one host (ranks launched with
// one environment) would write the same files, so each takes a lock file first
// (".system_metrics.<node>.ringprof_claim" in the output folder, process/run_claim.hpp) and only
// the holder samples; the lock goes with its process, so a crashed sampler leaves none.
//
// No GPU rows is said once on stderr, with NVML's reason, when the machine looks like it has an
// NVIDIA GPU (the driver's device node, or the library itself is there) and still none answers; on
// a machine with neither it is the expected answer and nothing is said, so a CPU-only run prints
// nothing of the sampler.
//
// Bound: a sample reads four small /proc files and asks NVML two questions per GPU; at the
// default 500 ms that is well under 0.5 % of one core (bench/bench_system_sampler.cpp). stop()
// wakes the thread at once and waits only for the sample under way, kMaxSamplerStopWait at most:
// a driver call that never returns leaves the thread behind (said once) instead of hanging the
// program's exit. Everything the thread touches is its own (shared with this object), so it may
// outlive the sampler; it writes nothing once stopping began.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "process/fork_gate.hpp"
#include "process/output_problems.hpp"
#include "process/run_claim.hpp"
#include "system/host_rates.hpp"
#include "system/nvml_gpus.hpp"

namespace ringprof::detail {

struct SystemSamplerOptions {
    std::string output_dir;
    std::string node = "algo-1";
    std::uint32_t interval_ms = 500;
    std::string nvml_library = NvmlGpus::kLibrary;
    std::string proc_root = "/proc";  // tests point it at a folder of fixture files
    // Present when the machine has an NVIDIA driver's device nodes: without it and without the
    // library, the machine has no NVIDIA GPU and the absence of GPU rows is not worth a word.
    std::string nvidia_device_node = "/dev/nvidiactl";
    // Each sample written is also handed here (the sampler's thread, the node's name), never once
    // stop() has begun: the session's timeline draws them as counters (system_counters()).
    std::function<void(const SystemSample&, const std::string& node)> on_sample;
};

// Reads the counters under `proc_root` (stat, meminfo, diskstats, net/dev). A file that cannot be
// read or parsed leaves its part empty and adds its reason to `problems`.
HostReading read_host(const std::string& proc_root, std::vector<std::string>& problems);

constexpr auto kMaxSamplerStopWait = std::chrono::seconds(5);

class SystemSampler {
public:
    // Starts sampling unless another live process samples this node into this folder (null then).
    // Output failures go to `problems` (said once each); may be null in tests (then to stderr).
    // Throws std::system_error if the thread cannot start.
    static std::unique_ptr<SystemSampler> start(SystemSamplerOptions options, OutputProblems* problems);
    ~SystemSampler();
    SystemSampler(const SystemSampler&) = delete;
    SystemSampler& operator=(const SystemSampler&) = delete;

    // Wakes the thread, waits for the sample under way (kMaxSamplerStopWait at most), closes the
    // file. Idempotent.
    void stop();

    std::uint64_t samples_written() const;

private:
    struct Shared;
    SystemSampler(SystemSamplerOptions options, OutputProblems* problems);

    std::shared_ptr<Shared> shared_;
    RunClaim claim_;
    GatedThread thread_;
    pid_t owner_pid_;
};

}  // namespace ringprof::detail

namespace ringprof {
struct Config;
}

namespace ringprof::detail {

// The session's sampler: started when `config.system_metrics` says so, for the node
// `config.node_rank` names, into `config.output_dir`; output failures are said through `problems`.
// Null when off, when another process of this node samples into that folder, or when the thread
// cannot start (said on stderr).
// Each sample written also goes to `on_sample` (may be empty).
std::unique_ptr<SystemSampler> start_session_sampler(
    const Config& config, OutputProblems& problems,
    std::function<void(const SystemSample&, const std::string& node)> on_sample = {});

}  // namespace ringprof::detail
