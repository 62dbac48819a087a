#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>

#include "process/env_settings.hpp"
#include "process/numeric_settings.hpp"
#include "ringprof/config.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof {

namespace {

// The program's name as ps shows it: the main thread's. The thread starting the session waits for
// it, so on the main thread it is asked of the kernel (one call); another thread reads
// /proc/self/comm with one read() (its open alone costs 10-30 us; an ifstream, with its locale
// and buffers, more instructions than the rest of the session's start).
std::string program_name() {
    char name[64] = {};
    if (::gettid() == ::getpid()) {
        if (::pthread_getname_np(::pthread_self(), name, sizeof name) != 0) name[0] = '\0';
    } else if (const int fd = ::open("/proc/self/comm", O_RDONLY | O_CLOEXEC); fd >= 0) {
        if (::read(fd, name, sizeof name - 1) <= 0) name[0] = '\0';
        ::close(fd);
        name[std::strcspn(name, "\n")] = '\0';
    }
    return name;
}

// RINGPROF_NODE_RANK, else what the launcher says: SageMaker names its hosts "algo-<n>"
// (SM_CURRENT_HOST), torchrun and Lightning give NODE_RANK. Only a rank that is valid by
// RINGPROF_NODE_RANK's own range is taken from them.
std::optional<std::uint32_t> node_rank_from_environment() {
    const detail::NumericSetting& s = detail::kNodeRankSetting;
    if (detail::env_string(s.name)) {
        auto v = detail::env_unsigned(s.name, s.min, s.max);
        return v ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*v)) : std::nullopt;
    }
    if (auto host = detail::env_string("SM_CURRENT_HOST"); host && host->rfind("algo-", 0) == 0) {
        const std::string n = host->substr(5);
        if (!n.empty() && n.size() <= 7 && n.find_first_not_of("0123456789") == std::string::npos) {
            const unsigned long v = std::stoul(n);
            if (v >= 1 && v - 1 <= s.max) return static_cast<std::uint32_t>(v - 1);
        }
    }
    if (detail::env_string("NODE_RANK")) {
        if (auto v = detail::env_unsigned("NODE_RANK", s.min, s.max)) return static_cast<std::uint32_t>(*v);
    }
    return std::nullopt;
}

}  // namespace

Config Config::from_environment() {
    Config c;
    using detail::env_bool;
    using detail::env_string;
    const auto env_setting = [](const detail::NumericSetting& s) { return detail::env_unsigned(s.name, s.min, s.max); };
    if (auto v = env_string("RINGPROF_OUTPUT_DIR")) c.output_dir = *v;
    if (auto v = env_string("RINGPROF_RUN_ID")) c.run_id = *v;
    if (auto v = env_setting(detail::kRingBytesSetting)) {
        c.ring_bytes = static_cast<std::size_t>(*v);
    }
    // RINGPROF_ENABLED is this setting's first name, kept working; it is also the compile-out
    // macro, which means something else, hence the name that says what it does.
    const std::optional<bool> start_recording = env_bool("RINGPROF_START_RECORDING");
    const std::optional<bool> enabled = env_bool("RINGPROF_ENABLED");
    if (start_recording)
        c.start_enabled = *start_recording;
    else if (enabled)
        c.start_enabled = *enabled;
    if (start_recording && enabled && *start_recording != *enabled) {
        detail::warn_env("RINGPROF_ENABLED", env_string("RINGPROF_ENABLED").value_or(""),
                         "RINGPROF_START_RECORDING, its newer name, is set too and is used");
    }
    if (auto v = env_string("RINGPROF_BACKENDS")) c.backends = detail::split_list(*v);
    if (auto v = env_string("RINGPROF_TIMERS_FORMAT")) {
        if (*v == "dict")
            c.timers_format = TimersFormat::Dict;
        else if (*v == "list")
            c.timers_format = TimersFormat::List;
        else
            detail::warn_env("RINGPROF_TIMERS_FORMAT", *v, "expected 'list' or 'dict'");
    }
    if (auto v = env_setting(detail::kFlushIntervalSetting)) {
        c.flush_interval_ms = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_bool("RINGPROF_SUBTRACT_OVERHEAD")) c.subtract_overhead = *v;
    if (auto v = env_setting(detail::kTimelineMinNsSetting)) c.timeline_min_ns = *v;
    if (auto v = env_setting(detail::kTimelineMaxDepthSetting)) {
        c.timeline_max_depth = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_setting(detail::kTimelineQueueSpansSetting)) {
        c.timeline_queue_spans = static_cast<std::size_t>(*v);
    }
    if (auto v = env_setting(detail::kPythonTimelineBytesSetting)) {
        c.pythontimeline_max_bytes = *v;
    }
    if (auto v = env_setting(detail::kPythonTimelineSecondsSetting)) {
        c.pythontimeline_max_seconds = static_cast<std::uint32_t>(*v);
    }
    if (auto v = env_string("RINGPROF_ON_FULL")) {
        if (*v == "wait")
            c.on_full = OnFull::Wait;
        else if (*v == "drop")
            c.on_full = OnFull::Drop;
        else
            detail::warn_env("RINGPROF_ON_FULL", *v, "expected 'wait' or 'drop'");
    }
    if (auto v = env_bool("RINGPROF_SYSTEM_METRICS")) c.system_metrics = *v;
    if (auto v = env_setting(detail::kSystemIntervalSetting)) c.system_interval_ms = static_cast<std::uint32_t>(*v);
    if (auto v = node_rank_from_environment()) c.node_rank = *v;
    if (auto v = env_setting(detail::kDrainersSetting)) c.drainers = static_cast<std::uint32_t>(*v);
    return c;
}

std::string Config::effective_run_id() const {
    // A run id is a file name's first part: one that is not a name (a '/', "..") would put every
    // output outside the output folder, so it is refused, said once, and the default used.
    if (!run_id.empty()) {
        const std::string wrong = why_not_a_name(run_id);
        if (wrong.empty()) return run_id;
        std::fprintf(stderr,
                     "ringprof: run id '%s' is not a name (%s): a run id names files inside the output folder; the "
                     "default run id is used instead\n",
                     run_id.c_str(), wrong.c_str());
    }
    // The program's name is whatever the program chose (prctl can put a '/' in it): not
    // refused, only made a name.
    std::string program = program_name();
    if (program.empty()) program = "ringprof";
    for (char& c : program) {
        if (c == '/' || c == '\0') c = '_';
    }
    if (program == "." || program == "..") program = "ringprof";
    return program + "_" + std::to_string(::getpid());
}

}  // namespace ringprof
