#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "process/env_settings.hpp"
#include "engine/ring_room.hpp"
#include "ringprof/config.hpp"

namespace ringprof {

namespace {
// Accepted ranges of the numeric settings; anything else is refused with a message.
constexpr std::uint64_t kMinRingBytes = 1024;            // 64 events: less cannot hold one deep stack
constexpr std::uint64_t kMaxFlushIntervalMs = 86400000;  // a day
constexpr std::uint64_t kMaxTimelineMinNs = 3600000000000;  // an hour
constexpr std::uint64_t kMaxTimelineDepth = 1000000;
constexpr std::uint64_t kMinQueueSpans = 16;
constexpr std::uint64_t kMaxQueueSpans = std::uint64_t{1} << 26;  // about 3 GiB at 48 bytes a span
// A pythontimeline file of less than 64 KiB holds a few hundred spans: smaller limits only
// multiply files (0 once wrote 107,037 files in 0.3 s).
constexpr std::uint64_t kMinPythonTimelineBytes = std::uint64_t{64} << 10;
constexpr std::uint64_t kMaxPythonTimelineBytes = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxPythonTimelineSeconds = 604800;  // a week; 0: no age limit
}  // namespace

Config Config::from_environment() {
    Config c;
    using detail::env_bool;
    using detail::env_string;
    using detail::env_unsigned;
    if (auto v = env_string("RINGPROF_OUTPUT_DIR")) c.output_dir = *v;
    if (auto v = env_string("RINGPROF_RUN_ID")) c.run_id = *v;
    if (auto v = env_unsigned("RINGPROF_RING_BYTES", kMinRingBytes, detail::kMaxRingBytes)) {
        c.ring_bytes = static_cast<std::size_t>(*v);
    }
    // RINGPROF_ENABLED is this setting's first name, kept working; it is also the compile-out
    // macro, which means something else, hence the name that says what it does.
    const std::optional<bool> start_recording = env_bool("RINGPROF_START_RECORDING");
    const std::optional<bool> enabled = env_bool("RINGPROF_ENABLED");
    if (start_recording) c.start_enabled = *start_recording;
    else if (enabled) c.start_enabled = *enabled;
    if (start_recording && enabled && *start_recording != *enabled) {
        detail::warn_env("RINGPROF_ENABLED", env_string("RINGPROF_ENABLED").value_or(""),
                         "RINGPROF_START_RECORDING, its newer name, is set too and is used");
    }
    if (auto v = env_string("RINGPROF_BACKENDS")) c.backends = detail::split_list(*v);
    if (auto v = env_string("RINGPROF_TIMERS_FORMAT")) {
        if (*v == "dict") c.timers_format = TimersFormat::Dict;
        else if (*v == "list") c.timers_format = TimersFormat::List;
        else detail::warn_env("RINGPROF_TIMERS_FORMAT", *v, "expected 'list' or 'dict'");
    }
    if (auto v = env_unsigned("RINGPROF_FLUSH_INTERVAL_MS", 0, kMaxFlushIntervalMs)) {
        c.flush_interval_ms = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_bool("RINGPROF_SUBTRACT_OVERHEAD")) c.subtract_overhead = *v;
    if (auto v = env_unsigned("RINGPROF_TIMELINE_MIN_NS", 0, kMaxTimelineMinNs)) c.timeline_min_ns = *v;
    if (auto v = env_unsigned("RINGPROF_TIMELINE_MAX_DEPTH", 0, kMaxTimelineDepth)) {
        c.timeline_max_depth = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_unsigned("RINGPROF_TIMELINE_QUEUE_SPANS", kMinQueueSpans, kMaxQueueSpans)) {
        c.timeline_queue_spans = static_cast<std::size_t>(*v);
    }
    if (auto v = env_unsigned("RINGPROF_PYTHONTIMELINE_MAX_BYTES", kMinPythonTimelineBytes, kMaxPythonTimelineBytes)) {
        c.pythontimeline_max_bytes = *v;
    }
    if (auto v = env_unsigned("RINGPROF_PYTHONTIMELINE_MAX_SECONDS", 0, kMaxPythonTimelineSeconds)) {
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
