// A plugin that recorded scopes is dlclose'd: its sites, and the strings they name, are unmapped.
// The drainer keeps its own copies of every site (drain/site_table.hpp) and reads an unloading
// module's events before it goes (drain/module_unload.cpp), so the flushes and the exit after
// the unload write every output whole, with the plugin's names, and a second plugin mapped where
// the first one was keeps its own names.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "bounded_process.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Complete events by name, of every trace file under `dir` whose name ends in `suffix`.
class NameCounter final : public detail::EventSink {
public:
    std::map<std::string, long> by_name;
    void on_event(const detail::ReadEvent& e) override { ++by_name[std::string(e.name)]; }
};

std::map<std::string, long> events_by_name(const fs::path& dir, const std::string& suffix, int& files) {
    NameCounter counter;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || name.size() < suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        ++files;
        auto src = detail::open_trace_file(e.path().string());
        detail::ReaderSetup setup;
        setup.node_id = "n";
        const detail::ReadOutcome read = detail::read_trace_events(*src, setup, counter);
        EXPECT_EQ(read.dropped, 0u) << e.path() << " has malformed events";
    }
    return counter.by_name;
}

void run_host(const char* host) {
    TempDir dir;
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "unload");
            ::unsetenv("RINGPROF_BACKENDS");
            ::execl(host, host, RINGPROF_UNLOAD_PLUGIN_A, RINGPROF_UNLOAD_PLUGIN_B, static_cast<char*>(nullptr));
            return 97;
        },
        within(120s));
    ASSERT_TRUE(o.finished) << host << " hung";
    ASSERT_EQ(o.signal, 0) << host << " died of signal " << o.signal;
    ASSERT_EQ(o.exit_code, 0) << host;

    // Plugin a: 1000 then 500 iterations, each on the caller's thread and on a thread of its own.
    const TimerTree tree = load_timers_json(dir.str() + "/unload_timers.json");
    const TimerNode* a_outer = tree.root.find("plugin_a_outer");
    const TimerNode* b_outer = tree.root.find("plugin_b_outer");
    ASSERT_NE(a_outer, nullptr);
    ASSERT_NE(b_outer, nullptr);
    EXPECT_EQ(a_outer->count, 3000u);
    EXPECT_EQ(b_outer->count, 1400u);
    ASSERT_NE(a_outer->find("plugin_a_inner"), nullptr);
    EXPECT_EQ(a_outer->find("plugin_a_inner")->count, 3000u);
    ASSERT_NE(b_outer->find("plugin_b_inner"), nullptr);
    EXPECT_EQ(b_outer->find("plugin_b_inner")->count, 1400u);
    EXPECT_EQ(a_outer->find("plugin_b_inner"), nullptr) << "plugin b's scope named after plugin a's";
    ASSERT_NE(tree.root.find("host_after_unload"), nullptr);
    EXPECT_EQ(tree.root.find("host_after_unload")->count, 2000u);
    ASSERT_NE(a_outer->find("signature_of_plugin_a"), nullptr);
    EXPECT_EQ(a_outer->find("signature_of_plugin_a")->count, 3000u);
    std::map<std::string, Gauge> gauges(tree.gauges.begin(), tree.gauges.end());
    EXPECT_EQ(gauges.count("plugin_a_gauge"), 1u);
    EXPECT_EQ(gauges.count("plugin_b_gauge"), 1u);

    std::map<std::string, long> rows;
    for (const FunctionStats& f : load_stats_json(dir.str() + "/unload_stats.json")) {
        rows[f.name + f.signature] += static_cast<long>(f.counts.ncalls);
    }
    EXPECT_EQ(rows["plugin_a_outer"], 3000);
    EXPECT_EQ(rows["plugin_b_inner"], 1400);
    bool a_signature = false;
    for (const auto& [name, n] : rows) {
        if (name.rfind("signature_of_plugin_a(", 0) == 0 && name.find("vector<float>") != std::string::npos) {
            a_signature = n == 3000;
        }
    }
    EXPECT_TRUE(a_signature) << "plugin a's signature row, with its argument's type";

    // The timelines may leave spans out under load (counted, docs/backends.md), never rename them.
    int traces = 0, timelines = 0;
    const auto trace = events_by_name(dir.path(), "_trace.json.gz", traces);
    const auto timeline = events_by_name(dir.path(), "_pythontimeline.json", timelines);
    EXPECT_EQ(traces, 1);
    EXPECT_GE(timelines, 1);
    for (const auto* seen : {&trace, &timeline}) {
        for (const auto& [name, limit] : std::map<std::string, long>{
                 {"plugin_a_outer", 3000}, {"plugin_a_inner", 3000}, {"plugin_b_outer", 1400}, {"plugin_b_inner", 1400}}) {
            const long n = seen->count(name) != 0 ? seen->at(name) : 0;
            EXPECT_GT(n, 0) << name;
            EXPECT_LE(n, limit) << name;
        }
    }
}

TEST(PluginUnload, FlushesAndExitAfterAPluginUnloadsKeepItsScopesInEveryOutputWithTheStaticLibrary) {
    run_host(RINGPROF_UNLOAD_HOST_STATIC);
}

TEST(PluginUnload, FlushesAndExitAfterAPluginUnloadsKeepItsScopesInEveryOutputWithTheSharedLibrary) {
    run_host(RINGPROF_UNLOAD_HOST_SHARED);
}

}  // namespace
}  // namespace ringprof::testing
