// The sampler's rows as counter tracks in the session's own trace.json.gz: every row of the system
// files is a "C" event named as MergedTimeline names it, at the sample's time, with its value; and
// the timeline writer's own room for them.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "bounded_process.hpp"
#include "drain/clock_calibration.hpp"
#include "timeline/timeline_writer.hpp"
#include "gzip_text.hpp"
#include "ringprof/config.hpp"
#include "ringprof/session.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using ringprof::testing::gunzip_file;

// (counter name, value) -> how many rows, with the times (epoch seconds) seen.
using CounterKey = std::tuple<std::string, double>;

std::map<CounterKey, std::vector<double>> rows_as_counters(const fs::path& dir) {
    std::map<CounterKey, std::vector<double>> rows;
    simdjson::dom::parser parser;
    for (const auto& entry : fs::recursive_directory_iterator(dir / "system")) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            simdjson::dom::element row;
            EXPECT_EQ(parser.parse(line).get(row), simdjson::SUCCESS) << line;
            const std::string name = std::string(std::string_view(row["Name"])) + "_" +
                                     std::string(std::string_view(row["Dimension"])) + "_" +
                                     std::string(std::string_view(row["NodeId"]));
            rows[{name, double(row["Value"])}].push_back(double(row["Timestamp"]));
        }
    }
    return rows;
}

TEST(SystemCountersInTheTrace, AreEveryRowOfTheSystemFilesAtItsTimeWithItsValue) {
    ringprof::testing::TempDir dir;
    const auto outcome = ringprof::testing::run_bounded([&] {
        ringprof::Config c;
        c.output_dir = dir.str();
        c.run_id = "counted";
        c.backends = {"trace"};
        c.system_interval_ms = 100;
        ringprof::Session session(c);
        // Until two samples are in a file, however loaded the machine (the bounded run's deadline
        // ends a sampler that never writes).
        for (;;) {
            int memory_rows = 0;
            if (fs::exists(dir.path() / "system")) {
                for (const auto& [key, times] : rows_as_counters(dir.path()))
                    if (std::get<0>(key) == "MemoryUsedPercent_Memory_algo-1") memory_rows += int(times.size());
            }
            if (memory_rows >= 2) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return 0;
    });
    ASSERT_EQ(outcome.exit_code, 0);
    const auto rows = rows_as_counters(dir.path());
    ASSERT_FALSE(rows.empty());

    const std::string text = gunzip_file(dir.path() / "counted_trace.json.gz");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text.substr(0, 200);
    const double start_us = double(doc["otherData"]["start_time_since_epoch_in_micros"]);
    std::map<CounterKey, std::vector<double>> counters;
    for (simdjson::dom::element ev : doc["traceEvents"].get_array()) {
        std::string_view ph, name;
        if (ev["ph"].get(ph) != simdjson::SUCCESS || ph != "C") continue;
        ASSERT_EQ(ev["name"].get(name), simdjson::SUCCESS);
        if (name == "ringprof dropped") continue;
        const double ts_us = double(ev["ts"]);
        counters[{std::string(name), double(ev["args"]["value"])}].push_back((start_us + ts_us) * 1e-6);
    }
    ASSERT_EQ(counters.size(), rows.size()) << "a counter per row, no other";
    for (const auto& [key, times] : rows) {
        const auto it = counters.find(key);
        ASSERT_NE(it, counters.end()) << std::get<0>(key) << " = " << std::get<1>(key) << " has no counter";
        ASSERT_EQ(it->second.size(), times.size()) << std::get<0>(key);
        auto expected = times;
        auto got = it->second;
        std::sort(expected.begin(), expected.end());
        std::sort(got.begin(), got.end());
        // The trace's start is whole microseconds, its ts k/1024 us: within 2 us of the row's time.
        for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 2e-6) << std::get<0>(key);
    }
}

struct CountingBackend : ringprof::TimelineBackend {
    const char* name() const override { return "counting"; }
    void on_spans(const ringprof::SpanBatch&) override {}
    void on_counter(const char* n, std::uint64_t at, std::uint32_t, double v) override {
        names.emplace_back(n);
        addresses.push_back(n);
        times.push_back(at);
        values.push_back(v);
    }
    std::vector<std::string> names;
    std::vector<const char*> addresses;
    std::vector<std::uint64_t> times;
    std::vector<double> values;
};

TEST(SystemCountersInTheTrace, ReachTimelineBackendsUnderOneStableNameEach) {
    ringprof::detail::ClockCalibration clock;
    ringprof::detail::TimelineWriter writer(clock, ringprof::detail::TimelineOptions{});
    CountingBackend backend;
    writer.add_backend(&backend);
    ASSERT_TRUE(writer.start());
    writer.post_counters({{std::string("cpu0_CPUUtilization_algo-1"), 1000, 12.5},
                          {std::string("gpu0_GPUUtilization_algo-1"), 1000, 99}});
    writer.post_counters({{std::string("cpu0_CPUUtilization_algo-1"), 2000, 7.25}});
    writer.stop();
    ASSERT_EQ(backend.names.size(), 3u);
    EXPECT_EQ(backend.names[0], "cpu0_CPUUtilization_algo-1");
    EXPECT_EQ(backend.names[1], "gpu0_GPUUtilization_algo-1");
    EXPECT_EQ(backend.names[2], "cpu0_CPUUtilization_algo-1");
    // Backends may cache by the name's address, as they do for a site's: one name, one address.
    EXPECT_EQ(backend.addresses[0], backend.addresses[2]);
    EXPECT_NE(backend.addresses[0], backend.addresses[1]);
    EXPECT_EQ(backend.times, (std::vector<std::uint64_t>{1000, 1000, 2000}));
    EXPECT_EQ(backend.values, (std::vector<double>{12.5, 99, 7.25}));
}

}  // namespace
