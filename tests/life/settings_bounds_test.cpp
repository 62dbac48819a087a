// Every numeric setting at its bounds, read from the one table Config::from_environment uses:
// its minimum and maximum are taken, one inside each end too, one outside each end is refused
// with the message naming the range and the default kept; and the README states the same range.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "process/numeric_settings.hpp"
#include "ringprof/config.hpp"

namespace ringprof::testing {
namespace {

using detail::kNumericSettings;
using detail::NumericSetting;

// The Config field each setting fills. A row of the table without one here fails the test.
std::uint64_t field(const Config& c, const std::string& name) {
    static const std::map<std::string, std::uint64_t (*)(const Config&)> fields = {
        {"RINGPROF_RING_BYTES", [](const Config& x) -> std::uint64_t { return x.ring_bytes; }},
        {"RINGPROF_FLUSH_INTERVAL_MS", [](const Config& x) -> std::uint64_t { return x.flush_interval_ms; }},
        {"RINGPROF_TIMELINE_MIN_NS", [](const Config& x) -> std::uint64_t { return x.timeline_min_ns; }},
        {"RINGPROF_TIMELINE_MAX_DEPTH", [](const Config& x) -> std::uint64_t { return x.timeline_max_depth; }},
        {"RINGPROF_TIMELINE_QUEUE_SPANS", [](const Config& x) -> std::uint64_t { return x.timeline_queue_spans; }},
        {"RINGPROF_PYTHONTIMELINE_MAX_BYTES",
         [](const Config& x) -> std::uint64_t { return x.pythontimeline_max_bytes; }},
        {"RINGPROF_PYTHONTIMELINE_MAX_SECONDS",
         [](const Config& x) -> std::uint64_t { return x.pythontimeline_max_seconds; }},
        {"RINGPROF_SYSTEM_INTERVAL_MS", [](const Config& x) -> std::uint64_t { return x.system_interval_ms; }},
        {"RINGPROF_NODE_RANK", [](const Config& x) -> std::uint64_t { return x.node_rank; }},
        {"RINGPROF_DRAINERS", [](const Config& x) -> std::uint64_t { return x.drainers; }},
    };
    const auto it = fields.find(name);
    if (it == fields.end()) {
        ADD_FAILURE() << name << " has no Config field in this test";
        return 0;
    }
    return it->second(c);
}

struct Read {
    Config config;
    std::string err;
};

Read read_with(const char* name, const std::string& value) {
    ::setenv(name, value.c_str(), 1);
    ::testing::internal::CaptureStderr();
    Read r{Config::from_environment(), {}};
    r.err = ::testing::internal::GetCapturedStderr();
    ::unsetenv(name);
    return r;
}

// Every value is set alone, so the field keeps its default when refused.
TEST(SettingsBounds, EachSettingTakesItsMinimumAndMaximumAndOneInsideEachEnd) {
    for (const NumericSetting& s : kNumericSettings) {
        ASSERT_LT(s.min, s.max) << s.name;
        for (const std::uint64_t v : {s.min, s.min + 1, s.max - 1, s.max}) {
            SCOPED_TRACE(std::string(s.name) + "=" + std::to_string(v));
            const Read r = read_with(s.name, std::to_string(v));
            EXPECT_EQ(field(r.config, s.name), v);
            EXPECT_EQ(r.err, "");
        }
    }
}

TEST(SettingsBounds, EachSettingRefusesOneOutsideEitherEndAndKeepsItsDefault) {
    const Config defaults;
    for (const NumericSetting& s : kNumericSettings) {
        std::vector<std::string> outside = {std::to_string(s.max + 1)};
        // Below a minimum of 0 is a minus sign, which is not a whole number either.
        outside.push_back(s.min > 0 ? std::to_string(s.min - 1) : "-1");
        for (const std::string& v : outside) {
            SCOPED_TRACE(std::string(s.name) + "=" + v);
            const Read r = read_with(s.name, v);
            EXPECT_EQ(field(r.config, s.name), field(defaults, s.name)) << "the default is kept";
            const std::string message = "ringprof: ignoring " + std::string(s.name) + "='" + v +
                                        "': expected a whole number from " + std::to_string(s.min) + " to " +
                                        std::to_string(s.max) + "; the default is kept\n";
            EXPECT_EQ(r.err, message);
        }
    }
}

// The settings table of docs/reference.md: the row naming the variable states "MIN to MAX".
TEST(SettingsBounds, TheReferenceStatesEachSettingsRangeAsTheCodeChecksIt) {
    std::ifstream in(std::filesystem::path(RINGPROF_TEST_SOURCE_DIR).parent_path() / "docs" / "reference.md");
    ASSERT_TRUE(in) << "docs/reference.md not found";
    std::vector<std::string> rows;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("| `RINGPROF_", 0) == 0) rows.push_back(line);
    ASSERT_FALSE(rows.empty());
    for (const NumericSetting& s : kNumericSettings) {
        SCOPED_TRACE(s.name);
        const std::string quoted = "`" + std::string(s.name) + "`";
        const std::string* row = nullptr;
        for (const std::string& r : rows)
            if (r.find(quoted) != std::string::npos) row = &r;
        ASSERT_NE(row, nullptr) << "no row of the reference's settings table names it";
        const std::string range = std::to_string(s.min) + " to " + std::to_string(s.max);
        EXPECT_NE(row->find(range), std::string::npos) << "the reference's row does not say '" << range << "': " << *row;
    }
}

}  // namespace
}  // namespace ringprof::testing
