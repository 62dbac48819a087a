#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "env_settings.hpp"
#include "ringprof/config.hpp"

namespace ringprof {

Config Config::from_environment() {
    Config c;
    using detail::env_bool;
    using detail::env_string;
    using detail::env_unsigned;
    if (auto v = env_string("RINGPROF_OUTPUT_DIR")) c.output_dir = *v;
    if (auto v = env_string("RINGPROF_RUN_ID")) c.run_id = *v;
    if (auto v = env_unsigned("RINGPROF_RING_BYTES")) c.ring_bytes = static_cast<std::size_t>(*v);
    if (auto v = env_bool("RINGPROF_ENABLED")) c.start_enabled = *v;
    if (auto v = env_string("RINGPROF_BACKENDS")) c.backends = detail::split_list(*v);
    if (auto v = env_string("RINGPROF_TIMERS_FORMAT")) {
        if (*v == "dict") c.timers_format = TimersFormat::Dict;
        else if (*v == "list") c.timers_format = TimersFormat::List;
        else detail::warn_env("RINGPROF_TIMERS_FORMAT", *v, "expected 'list' or 'dict'");
    }
    if (auto v = env_unsigned("RINGPROF_FLUSH_INTERVAL_MS")) c.flush_interval_ms = static_cast<std::uint32_t>(*v);
    if (auto v = env_bool("RINGPROF_SUBTRACT_OVERHEAD")) c.subtract_overhead = *v;
    if (auto v = env_unsigned("RINGPROF_TIMELINE_MIN_NS")) c.timeline_min_ns = *v;
    if (auto v = env_unsigned("RINGPROF_TIMELINE_MAX_DEPTH")) c.timeline_max_depth = static_cast<std::uint32_t>(*v);
    if (auto v = env_unsigned("RINGPROF_TIMELINE_QUEUE_SPANS")) c.timeline_queue_spans = static_cast<std::size_t>(*v);
    if (auto v = env_unsigned("RINGPROF_PYTHONTIMELINE_MAX_BYTES")) c.pythontimeline_max_bytes = *v;
    if (auto v = env_unsigned("RINGPROF_PYTHONTIMELINE_MAX_SECONDS")) {
        c.pythontimeline_max_seconds = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_string("RINGPROF_ON_FULL")) {
        if (*v == "wait") c.on_full = OnFull::Wait;
        else if (*v == "drop") c.on_full = OnFull::Drop;
        else detail::warn_env("RINGPROF_ON_FULL", *v, "expected 'wait' or 'drop'");
    }
    return c;
}

std::string Config::effective_run_id() const {
    if (!run_id.empty()) return run_id;
    std::string program = "ringprof";
    std::ifstream comm("/proc/self/comm");
    std::string name;
    if (std::getline(comm, name) && !name.empty()) program = name;
    return program + "_" + std::to_string(::getpid());
}

}  // namespace ringprof
