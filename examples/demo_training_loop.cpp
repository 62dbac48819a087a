// A small multi-threaded "training loop": the main thread steps, four worker threads run
// environment steps with nested scopes in a hot loop. Several million events in all; every
// output ringprof has is written to RINGPROF_OUTPUT_DIR (default ./ringprof_out).
//
// The environment steps last a few microseconds each and there are millions of them: the
// aggregates (timers, statistics, flame graph) count every one, while the timelines keep
// scopes of 20 us and longer unless RINGPROF_TIMELINE_MIN_NS says otherwise — a full timeline
// of this loop would be a quarter of a gigabyte of pythontimeline files.
#include <ringprof/ringprof.hpp>

#include <atomic>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <dirent.h>
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
    return static_cast<float>(burn(20000 * batch / 64, observations[0]));
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
        g_sink.store(burn(40000, step));
    }
    PROF_GAUGE("loss", 1.0 / (1.0 + step));
}

void list_outputs(const ringprof::RunInfo& run) {
    std::printf("ringprof outputs of run '%s' in %s:\n", run.run_id.c_str(), run.output_dir.c_str());
    if (DIR* dir = opendir(run.output_dir.c_str())) {
        while (dirent* e = readdir(dir)) {
            const std::string name = e->d_name;
            if (name.rfind(run.run_id, 0) == 0) std::printf("  %s/%s\n", run.output_dir.c_str(), name.c_str());
        }
        closedir(dir);
    }
}

}  // namespace

int main() {
    ringprof::Config config = ringprof::Config::from_environment();
    if (std::getenv("RINGPROF_TIMELINE_MIN_NS") == nullptr) config.timeline_min_ns = 20'000;
    ringprof::Session session(config);
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
    const auto drops = ringprof::dropped_scopes();
    std::printf("scopes dropped (ring full): %llu\n", static_cast<unsigned long long>(drops));
    list_outputs(session.run_info());
    return 0;
}
