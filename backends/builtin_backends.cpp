#include "builtin_backends.hpp"

#include <cstdio>
#include <functional>

#include "chrome_trace_backend.hpp"
#include "flame_html_backend.hpp"
#include "flame_svg_backend.hpp"
#include "folded_stacks_backend.hpp"
#include "pythontimeline_backend.hpp"
#include "stats_backend.hpp"
#include "timers_json_backend.hpp"

namespace ringprof::backends {

namespace {
struct Entry {
    const char* name;
    std::function<std::unique_ptr<Backend>(const Config&)> make;
};

const std::vector<Entry>& table() {
    // Never destroyed: a session may start on another thread while static destruction runs.
    static const auto* entries = new std::vector<Entry>{
        {"timers", [](const Config& c) { return std::make_unique<TimersJsonBackend>(c.timers_format); }},
        {"trace", [](const Config& c) { return std::make_unique<ChromeTraceBackend>(c.flush_interval_ms != 0 ? c.flush_interval_ms : 1000); }},
        {"pythontimeline", [](const Config& c) { return std::make_unique<PythonTimelineBackend>(c.pythontimeline_max_bytes, c.pythontimeline_max_seconds); }},
        {"stats", [](const Config&) { return std::make_unique<StatsBackend>(); }},
        {"flame", [](const Config& c) { return std::make_unique<FlameHtmlBackend>(c.timeline_min_ns, c.timeline_max_depth); }},
        {"flame_svg", [](const Config&) { return std::make_unique<FlameSvgBackend>(); }},
        {"folded", [](const Config&) { return std::make_unique<FoldedStacksBackend>(); }},
    };
    return *entries;
}
}  // namespace

std::vector<std::string> builtin_backend_names() {
    std::vector<std::string> names;
    for (const Entry& e : table()) names.emplace_back(e.name);
    return names;
}

std::vector<std::unique_ptr<Backend>> make_builtin_backends(const Config& config) {
    std::vector<std::unique_ptr<Backend>> out;
    if (config.backends.empty()) {
        for (const Entry& e : table()) out.push_back(e.make(config));
        return out;
    }
    for (const std::string& wanted : config.backends) {
        bool found = false;
        for (const Entry& e : table()) {
            if (wanted == e.name) {
                out.push_back(e.make(config));
                found = true;
            }
        }
        if (!found) {
            std::string valid;
            for (const Entry& e : table()) valid += std::string(valid.empty() ? "" : ", ") + e.name;
            std::fprintf(stderr, "ringprof: unknown backend '%s' skipped (known: %s)\n", wanted.c_str(),
                         valid.c_str());
        }
    }
    return out;
}

}  // namespace ringprof::backends
