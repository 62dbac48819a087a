#include <cstdio>
#include <system_error>

#include "ringprof/config.hpp"
#include "system/metric_files.hpp"
#include "system/system_sampler.hpp"

namespace ringprof::detail {

std::unique_ptr<SystemSampler> start_session_sampler(
    const Config& config, OutputProblems& problems,
    std::function<void(const SystemSample&, const std::string& node)> on_sample) {
    if (!config.system_metrics) return nullptr;
    SystemSamplerOptions options;
    options.output_dir = config.output_dir;
    options.node = system_node_name(config.node_rank);
    options.interval_ms = config.system_interval_ms;
    options.on_sample = std::move(on_sample);
    try {
        return SystemSampler::start(std::move(options), &problems);
    } catch (const std::system_error& e) {
        std::fprintf(stderr, "ringprof: cannot start the system-metrics thread (%s): no system metrics this run\n",
                     e.what());
        return nullptr;
    }
}

}  // namespace ringprof::detail
