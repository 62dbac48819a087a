// Every numeric setting is parsed with a range check: a value out of range (or one that would
// wrap) is refused with one message naming the variable and the accepted range, and the
// default is kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bounded_process.hpp"
#include "ringprof/config.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

struct Setting {
    const char* name;
    const char* range;  // as the message states it
    std::uint64_t (*read)(const Config&);
    const char* in_range;
    std::uint64_t in_range_value;
    std::vector<const char*> refused;
};

std::vector<Setting> settings() {
    return {
        {"RINGPROF_FLUSH_INTERVAL_MS",
         "from 0 to 86400000",
         [](const Config& c) -> std::uint64_t { return c.flush_interval_ms; },
         "250",
         250,
         {"4294967496", "4294967296", "86400001", "-1", "1e3", "99999999999999999999999"}},
        {"RINGPROF_TIMELINE_MAX_DEPTH",
         "from 0 to 1000000",
         [](const Config& c) -> std::uint64_t { return c.timeline_max_depth; },
         "12",
         12,
         {"4294967296", "1000001", "two"}},
        {"RINGPROF_TIMELINE_MIN_NS",
         "from 0 to 3600000000000",
         [](const Config& c) -> std::uint64_t { return c.timeline_min_ns; },
         "5000",
         5000,
         {"3600000000001", "18446744073709551616", " 5"}},
        {"RINGPROF_TIMELINE_QUEUE_SPANS",
         "from 16 to 67108864",
         [](const Config& c) -> std::uint64_t { return c.timeline_queue_spans; },
         "4096",
         4096,
         {"0", "15", "67108865"}},
        {"RINGPROF_PYTHONTIMELINE_MAX_BYTES",
         "from 65536 to 1099511627776",
         [](const Config& c) -> std::uint64_t { return c.pythontimeline_max_bytes; },
         "1048576",
         1048576,
         {"0", "65535", "1099511627777"}},
        {"RINGPROF_PYTHONTIMELINE_MAX_SECONDS",
         "from 0 to 604800",
         [](const Config& c) -> std::uint64_t { return c.pythontimeline_max_seconds; },
         "30",
         30,
         {"604801", "4294967296"}},
        {"RINGPROF_RING_BYTES",
         "from 1024 to 1073741824",
         [](const Config& c) -> std::uint64_t { return c.ring_bytes; },
         "65536",
         65536,
         {"0", "1023", "1073741825", "99999999999999", "1M"}},
        {"RINGPROF_SYSTEM_INTERVAL_MS",
         "from 100 to 60000",
         [](const Config& c) -> std::uint64_t { return c.system_interval_ms; },
         "1000",
         1000,
         {"0", "99", "60001", "0.5"}},
        {"RINGPROF_NODE_RANK",
         "from 0 to 1000000",
         [](const Config& c) -> std::uint64_t { return c.node_rank; },
         "3",
         3,
         {"-1", "1000001", "algo-1"}},
    };
}

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(Settings, OutOfRangeNumbersAreRefusedWithOneMessageNamingTheVariableAndRange) {
    const Config defaults;
    for (const Setting& s : settings()) {
        for (const char* value : s.refused) {
            SCOPED_TRACE(std::string(s.name) + "=" + value);
            ::setenv(s.name, value, 1);
            ::testing::internal::CaptureStderr();
            const Config c = Config::from_environment();
            const std::string err = ::testing::internal::GetCapturedStderr();
            ::unsetenv(s.name);
            EXPECT_EQ(s.read(c), s.read(defaults)) << "the default is kept";
            EXPECT_EQ(count(err, "\n"), 1) << err;
            EXPECT_NE(err.find(s.name), std::string::npos) << err;
            EXPECT_NE(err.find(s.range), std::string::npos) << err;
        }
    }
}

TEST(Settings, NumbersInRangeAreTakenSilently) {
    for (const Setting& s : settings()) {
        SCOPED_TRACE(s.name);
        ::setenv(s.name, s.in_range, 1);
        ::testing::internal::CaptureStderr();
        const Config c = Config::from_environment();
        const std::string err = ::testing::internal::GetCapturedStderr();
        ::unsetenv(s.name);
        EXPECT_EQ(s.read(c), s.in_range_value);
        EXPECT_EQ(err, "");
    }
}

// RINGPROF_ENABLED is also the compile-out macro; the setting's own name says what it does.
TEST(Settings, StartRecordingAndItsOldNameEnabledBothChooseWhetherRecordingStartsOn) {
    struct Case {
        const char* start_recording;  // null: unset
        const char* enabled;
        bool start_enabled;
        int warnings;
    };
    const Case cases[] = {{nullptr, nullptr, true, 0}, {"0", nullptr, false, 0}, {nullptr, "0", false, 0},
                          {"1", nullptr, true, 0},     {"1", "1", true, 0},      {"0", "1", false, 1},
                          {"1", "0", true, 1}};
    for (const Case& k : cases) {
        SCOPED_TRACE(std::string("RINGPROF_START_RECORDING=") + (k.start_recording ? k.start_recording : "(unset)") +
                     " RINGPROF_ENABLED=" + (k.enabled ? k.enabled : "(unset)"));
        if (k.start_recording) ::setenv("RINGPROF_START_RECORDING", k.start_recording, 1);
        if (k.enabled) ::setenv("RINGPROF_ENABLED", k.enabled, 1);
        ::testing::internal::CaptureStderr();
        const Config c = Config::from_environment();
        const std::string err = ::testing::internal::GetCapturedStderr();
        ::unsetenv("RINGPROF_START_RECORDING");
        ::unsetenv("RINGPROF_ENABLED");
        EXPECT_EQ(c.start_enabled, k.start_enabled);
        EXPECT_EQ(count(err, "\n"), k.warnings) << err;
        if (k.warnings != 0) {
            EXPECT_NE(err.find("RINGPROF_ENABLED"), std::string::npos) << err;
            EXPECT_NE(err.find("RINGPROF_START_RECORDING"), std::string::npos) << err;
        }
    }
}

TEST(Settings, ThePythonTimelineNeverRotatesBelowItsMinimumFileSize) {
    TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "tiny";
    c.backends = {"pythontimeline"};
    c.pythontimeline_max_bytes = 0;  // from code, unchecked: the backend's floor applies
    const long spans = scaled(20000);
    // In a child process, like every scenario here: this process stays without a session.
    const Outcome o = run_bounded([&] {
        Session session(c);
        for (long i = 0; i < spans; ++i) {
            PROF_SCOPE("span");
        }
        return 0;
    });
    ASSERT_TRUE(o.finished);
    long files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path() / "framework" / "pevents")) {
        files += e.is_regular_file() ? 1 : 0;
    }
    EXPECT_GE(files, 1);
    // A span takes about 60 bytes of JSON, so a 4 KiB file holds dozens of them.
    EXPECT_LE(files, spans / 20 + 1) << "a file per span or two";
}

}  // namespace
}  // namespace ringprof::testing
