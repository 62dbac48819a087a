// A small multi-threaded "training loop": the trainer thread steps (forward and backward passes),
// four worker threads run environment steps with nested scopes in a hot loop. Several million
// events in all; every output ringprof has is written to RINGPROF_OUTPUT_DIR (default
// ./ringprof_out), and the demo ends by listing them with their sizes.
//
// The environment steps last a few microseconds each and there are millions of them: the
// aggregates (timers, statistics, flame graph) count every one, while the timelines keep
// scopes of 20 us and longer unless RINGPROF_TIMELINE_MIN_NS says otherwise — a full timeline
// of this loop would be a quarter of a gigabyte of pythontimeline files.
#include <ringprof/ringprof.hpp>
#include <ringprof/timeline_backend.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kSteps = 40;
constexpr int kWorkers = 4;
constexpr int kEnvStepsPerWorkerStep = 6000;

// Enough arithmetic that an environment step lasts a few microseconds, like a small simulator.
double burn(int n, double seed) {
    double x = seed;
    for (int i = 0; i < n; ++i) x = std::sqrt(x * x + 1.0) * 0.999;
    return x;
}

std::atomic<double> g_sink{0};

void physics(double& state) {
    PROF_FUNCTION();
    state = burn(500, state);
}

double reward(double state) {
    PROF_SCOPE("reward");
    return burn(120, state);
}

void env_step(double& state) {
    PROF_FUNCTION();
    physics(state);
    state += reward(state) * 1e-3;
}

void worker(int id, ringprof::Context training) {
    ringprof::set_thread_name("env_worker_" + std::to_string(id));
    // The worker's scopes nest under the trainer's "training" scope, marked parallel.
    ringprof::AdoptContext adopt(training);
    double state = id + 1.0;
    for (int step = 0; step < kSteps; ++step) {
        PROF_SCOPE("collect_rollout");
        for (int i = 0; i < kEnvStepsPerWorkerStep; ++i) env_step(state);
        PROF_GAUGE("env_state", state);
    }
    g_sink.store(state);
}

float policy_forward(const std::vector<float>& observations, int batch) {
    PROF_FUNCTION_SIG(observations, batch);  // one statistics row per argument shape
    return static_cast<float>(burn(160000 * batch / 64, observations[0]));
}

void train_step(int step) {
    PROF_STEP(step);
    PROF_FUNCTION();
    {
        // Two batch shapes, so the statistics table shows two rows for policy_forward.
        const int batch = step % 2 == 0 ? 64 : 32;
        const std::vector<float> observations(static_cast<std::size_t>(batch) * 8, 0.5f);
        g_sink.store(policy_forward(observations, batch));
    }
    {
        PROF_SCOPE("policy_backward");
        g_sink.store(burn(320000, step));
    }
    PROF_GAUGE("loss", 1.0 / (1.0 + step));
}

// A timeline backend of the demo's own: it only keeps the counts the session reports to
// timelines, so the demo can say what its filter left out.
class TimelineCounts : public ringprof::TimelineBackend {
public:
    const char* name() const override { return "demo_timeline_counts"; }
    void on_timeline_flush(const ringprof::TimelineStatus& status) override { *status_ = status; }
    explicit TimelineCounts(std::shared_ptr<ringprof::TimelineStatus> status) : status_(std::move(status)) {}

private:
    std::shared_ptr<ringprof::TimelineStatus> status_;
};

std::string size_text(std::uintmax_t bytes) {
    char buf[32];
    if (bytes >= 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    else if (bytes >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f kB", static_cast<double>(bytes) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%ju B", bytes);
    return buf;
}

// Every file under the output folder written since the run started: the run's own files and the
// pythontimeline files under framework/ (named by time and pid, not by run id).
void list_outputs(const ringprof::RunInfo& run) {
    namespace fs = std::filesystem;
    std::printf("ringprof wrote, for run '%s' in %s:\n", run.run_id.c_str(), run.output_dir.c_str());
    std::error_code ec;
    std::vector<std::pair<std::string, std::uintmax_t>> files;
    for (auto it = fs::recursive_directory_iterator(run.output_dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st {};
        if (!it->is_regular_file() || ::stat(it->path().c_str(), &st) != 0) continue;
        const auto mtime_ns = static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u + st.st_mtim.tv_nsec;
        if (mtime_ns + 1'000'000'000u < run.start_epoch_ns) continue;  // an earlier run's
        files.emplace_back(fs::relative(it->path(), run.output_dir).string(), static_cast<std::uintmax_t>(st.st_size));
    }
    std::sort(files.begin(), files.end());
    for (const auto& [name, size] : files) std::printf("  %9s  %s\n", size_text(size).c_str(), name.c_str());
    if (ec) std::printf("  (could not list %s: %s)\n", run.output_dir.c_str(), ec.message().c_str());
}

}  // namespace

int main() {
    ringprof::Config config = ringprof::Config::from_environment();
    const bool default_filter = std::getenv("RINGPROF_TIMELINE_MIN_NS") == nullptr;
    if (default_filter) config.timeline_min_ns = 20'000;
    auto timeline_status = std::make_shared<ringprof::TimelineStatus>();
    ringprof::RunInfo run;
    std::uint64_t dropped_scopes = 0;
    {
        ringprof::Session session(config);
        session.add_backend(std::make_unique<TimelineCounts>(timeline_status));
        ringprof::set_thread_name("trainer");
        ringprof::add_metadata("example", "demo_training_loop");
        {
            PROF_SCOPE("training");
            std::vector<std::thread> workers;
            const ringprof::Context training = ringprof::capture_context();
            for (int w = 0; w < kWorkers; ++w) workers.emplace_back(worker, w, training);
            for (int step = 0; step < kSteps; ++step) train_step(step);
            for (auto& t : workers) t.join();
        }
        session.flush();
        run = session.run_info();
        dropped_scopes = ringprof::dropped_scopes();
    }  // the session ends here: every file is complete and in place
    list_outputs(run);
    std::printf("timelines (trace.json.gz, pythontimeline): scopes shorter than %llu us left out (%llu spans)%s\n",
                static_cast<unsigned long long>(config.timeline_min_ns / 1000),
                static_cast<unsigned long long>(timeline_status->filtered_spans),
                default_filter ? "; the demo's default, RINGPROF_TIMELINE_MIN_NS=0 keeps every scope (~250 MB)"
                               : " by RINGPROF_TIMELINE_MIN_NS");
    std::printf("dropped: %llu scopes (ring full, missing from every output), %llu timeline spans (writer behind)\n",
                static_cast<unsigned long long>(dropped_scopes),
                static_cast<unsigned long long>(timeline_status->dropped_spans));
    std::printf(
        "reading the numbers: stats are per thread, so 'training' keeps the trainer's time spent waiting\n"
        "  for the workers as its tottime; timers merge threads, so its self time is 0 there (its children's\n"
        "  parallel time exceeds it). The flame page shows both: per-thread views and the merged one.\n");
    return 0;
}
