#include "system/system_sampler.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "process/file_text.hpp"
#include "process/fork_gate.hpp"
#include "system/metric_files.hpp"

namespace ringprof::detail {

namespace {

double seconds_of(clockid_t clock) {
    struct timespec ts {};
    ::clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Parses one file's text into `into` with `parse`; a missing, unreadable or unparsable file
// leaves `into` as it is and says why.
template <typename T, typename Parse>
void read_part(const std::string& path, Parse parse, T& into, std::vector<std::string>& problems) {
    std::string text;
    if (const std::string problem = read_file_text(path, text); !problem.empty()) {
        problems.push_back(path + ": " + problem + "; its system metrics are left out");
        return;
    }
    try {
        into = parse(text);
    } catch (const std::exception& e) {
        problems.push_back(std::string(e.what()) + "; its system metrics are left out");
    }
}

}  // namespace

HostReading read_host(const std::string& proc_root, std::vector<std::string>& problems) {
    HostReading r;
    r.seconds = seconds_of(CLOCK_MONOTONIC);
    read_part(proc_root + "/stat", parse_proc_stat, r.cpus, problems);
    read_part(proc_root + "/meminfo", parse_meminfo, r.memory, problems);
    read_part(proc_root + "/diskstats", parse_diskstats, r.disks, problems);
    read_part(proc_root + "/net/dev", parse_net_dev, r.nets, problems);
    return r;
}

// What the sampler thread uses: shared with the SystemSampler, so a thread left behind by a
// bounded stop() still has it.
struct SystemSampler::Shared {
    SystemSamplerOptions options;
    OutputProblems* problems = nullptr;
    std::mutex mutex;
    std::condition_variable wake;
    bool stop_requested = false;  // guarded by mutex
    bool finished = false;        // guarded by mutex
    bool abandoned = false;       // guarded by mutex: the owner stopped waiting, `problems` may be gone
    std::atomic<std::uint64_t> samples_written{0};
    std::vector<std::string> said;  // sampler thread only

    void say(const std::string& message) {  // each distinct message once
        if (std::find(said.begin(), said.end(), message) != said.end()) return;
        said.push_back(message);
        std::fprintf(stderr, "ringprof: system metrics: %s\n", message.c_str());
    }
    // Under the mutex, so an owner cannot give up waiting (and its `problems` go) meanwhile.
    void report(const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        if (abandoned) return;
        if (problems != nullptr)
            problems->report("system metrics", "write", e);
        else
            say(e.what());
    }
    void run();
};

std::unique_ptr<SystemSampler> SystemSampler::start(SystemSamplerOptions options, OutputProblems* problems) {
    std::unique_ptr<SystemSampler> s(new SystemSampler(std::move(options), problems));
    if (!s->claim_.claim_alone(s->shared_->options.output_dir,
                               ".system_metrics." + s->shared_->options.node + ".ringprof_claim"))
        return nullptr;  // another process of this node samples into this folder
    s->thread_ = GatedThread([shared = s->shared_] {
        shared->run();
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->finished = true;
        shared->wake.notify_all();
    });
    return s;
}

SystemSampler::SystemSampler(SystemSamplerOptions options, OutputProblems* problems)
    : shared_(std::make_shared<Shared>()), owner_pid_(::getpid()) {
    shared_->options = std::move(options);
    shared_->options.interval_ms = std::max<std::uint32_t>(shared_->options.interval_ms, 1);
    shared_->problems = problems;
}

SystemSampler::~SystemSampler() {
    if (::getpid() != owner_pid_) {
        thread_.forget_in_child();
        return;
    }
    stop();
}

std::uint64_t SystemSampler::samples_written() const {
    return shared_->samples_written.load(std::memory_order_acquire);
}

void SystemSampler::stop() {
    if (thread_.joinable()) {
        std::unique_lock<std::mutex> lock(shared_->mutex);
        shared_->stop_requested = true;
        shared_->wake.notify_all();
        const bool finished = shared_->wake.wait_until(lock, std::chrono::steady_clock::now() + kMaxSamplerStopWait,
                                                       [this] { return shared_->finished; });
        if (!finished) shared_->abandoned = true;
        lock.unlock();
        if (finished) {
            thread_.join();
        } else {
            std::fprintf(stderr,
                         "ringprof: system metrics: the sampler did not stop within %lld s (a GPU driver call that "
                         "does not return?); it is left running and writes nothing more\n",
                         static_cast<long long>(kMaxSamplerStopWait.count()));
            thread_.detach();
        }
    }
    claim_.release();
}

void SystemSampler::Shared::run() {
    NvmlGpus gpus(options.nvml_library);
    if ((!gpus.available() || gpus.device_count() == 0) &&
        (gpus.library_found() || ::access(options.nvidia_device_node.c_str(), F_OK) == 0))
        say("no GPU rows: " + gpus.why());
    SystemMetricFiles files(options.output_dir, options.node);
    std::vector<std::string> problems_seen;
    HostReading before = read_host(options.proc_root, problems_seen);
    const auto interval = std::chrono::milliseconds(options.interval_ms);
    auto next = std::chrono::steady_clock::now() + interval;
    for (;;) {
        {
            ForkGateBlocked asleep;
            std::unique_lock<std::mutex> lock(mutex);
            if (wake.wait_until(lock, next, [this] { return stop_requested; })) break;
        }
        fork_pause_point();
        SystemSample sample;
        sample.timestamp = seconds_of(CLOCK_REALTIME);
        HostReading after = read_host(options.proc_root, problems_seen);
        sample.metrics = host_metrics(before, after);
        gpus.append_metrics(sample.metrics, problems_seen);
        before = std::move(after);
        {
            // Under the mutex: once stop() has begun (and may give up waiting), whatever the
            // callback reaches may be gone. A sample begun as stopping began is not written; one
            // that passes here goes to both the file and the callback.
            std::lock_guard<std::mutex> lock(mutex);
            if (stop_requested) break;
            if (options.on_sample) options.on_sample(sample, options.node);
        }
        for (const std::string& p : problems_seen) say(p);
        problems_seen.clear();
        try {
            files.write(sample);
            samples_written.fetch_add(1, std::memory_order_acq_rel);
        } catch (const std::exception& e) {
            report(e);
        }
        // A late wake (a loaded machine, a stopped process) skips the missed ticks rather than
        // sampling in a burst: rates are per second of the real interval anyway.
        next += interval;
        const auto now = std::chrono::steady_clock::now();
        if (next <= now) next = now + interval;
    }
    try {
        files.close();
    } catch (const std::exception& e) {
        report(e);
    }
}

}  // namespace ringprof::detail
