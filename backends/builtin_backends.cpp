#include "session/builtin_backends.hpp"

#include <cstdio>
#include <functional>
#include <utility>

#include "chrome_trace_backend.hpp"
#include "flame_html_backend.hpp"
#include "pythontimeline_backend.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/snapshot_file_backend.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof::backends {

namespace {
struct Entry {
    const char* name;
    std::function<std::unique_ptr<Backend>(const Config&)> make;
};

// Outputs written whole at each snapshot: <run_id><suffix>, rendered from the snapshot.
std::unique_ptr<Backend> snapshot_files(const char* name, std::vector<SnapshotFile> files) {
    return std::make_unique<SnapshotFileBackend>(name, std::move(files));
}

const std::vector<Entry>& table() {
    // Never destroyed: a session may start on another thread while static destruction runs.
    // One row per backend reads as a table, which the formatter would break up.
    // clang-format off
    static const auto* entries = new std::vector<Entry>{
        // The ML-Agents timer tree.
        {"timers", [](const Config& c) {
             return snapshot_files("timers", {{"_timers.json", [format = c.timers_format](const Snapshot& s, const RunInfo&) {
                                                   return write_timers_json(s.tree, format);
                                               }}});
         }},
        {"trace", [](const Config& c) { return std::make_unique<ChromeTraceBackend>(c.flush_interval_ms != 0 ? c.flush_interval_ms : 1000); }},
        {"pythontimeline", [](const Config& c) { return std::make_unique<PythonTimelineBackend>(c.pythontimeline_max_bytes, c.pythontimeline_max_seconds); }},
        // The saved profile first (`ringprof stats` prints it in other orders), so that a table
        // that cannot be written does not cost it; then the cProfile table in standard-name order.
        {"stats", [](const Config&) {
             return snapshot_files("stats", {{"_stats.json", [](const Snapshot& s, const RunInfo& run) { return write_stats_json(s.stats, run.run_id); }},
                                             {"_stats.txt", [](const Snapshot& s, const RunInfo&) { return stats_table(s.stats); }}});
         }},
        // The interactive flame graph report (merged, side-by-side and per-thread views); it also
        // keeps the run's longest spans for the page's timeline, so it is a timeline backend too.
        {"flame", [](const Config& c) { return std::make_unique<FlameHtmlBackend>(c.timeline_min_ns, c.timeline_max_depth); }},
        // A static flame graph, for pages and reports where a script cannot run.
        {"flame_svg", [](const Config&) {
             return snapshot_files("flame_svg", {{"_flame.svg", [](const Snapshot& s, const RunInfo& run) {
                                                      SvgOptions options;
                                                      options.title = run.run_id + " - flame graph";
                                                      return render_svg(s.tree.root, options);
                                                  }}});
         }},
        // Folded stacks of the process tree ("root;a;b 1234", self time in whole microseconds)
        // for flamegraph.pl, inferno and speedscope.
        {"folded", [](const Config&) {
             return snapshot_files("folded", {{"_folded.txt", [](const Snapshot& s, const RunInfo&) { return render_folded(s.tree.root); }}});
         }},
    };
    // clang-format on
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
            std::fprintf(stderr, "ringprof: unknown backend '%s' skipped (known: %s)\n", wanted.c_str(), valid.c_str());
        }
    }
    return out;
}

}  // namespace ringprof::backends
