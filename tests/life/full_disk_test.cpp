// A full disk never leaves a file at its final name that is not complete and valid, a disk full
// for a moment costs nothing, and one that stays full leaves nothing behind to accumulate.
//
// The full disk is a file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored): write() then takes
// what fits below the limit and refuses the rest (EFBIG), exactly the short write and the refusal
// a full disk gives (ENOSPC), for any user, root included, with no mount and no privileges; and
// raising the limit again is the disk that frees up. Each scenario runs in a child process. The
// limit applies to the child's stderr file too, so it stays above what the child says there.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "blocking_backend.hpp"
#include "bounded_process.hpp"
#include "session/session_impl.hpp"
#include "env_session.hpp"
#include "gzip_text.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

// A namespace of its own: the test programs are unity builds.
namespace ringprof::testing::full_disk {
namespace {

namespace fs = std::filesystem;

// Files may grow to `bytes` from now on (the soft limit; the hard one is left as it is).
bool limit_file_size(rlim_t bytes) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{};
    if (::getrlimit(RLIMIT_FSIZE, &lim) != 0) return false;
    lim.rlim_cur = bytes < lim.rlim_max ? bytes : lim.rlim_max;
    return ::setrlimit(RLIMIT_FSIZE, &lim) == 0;
}

bool lift_file_size_limit() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_FSIZE, &lim) != 0) return false;
    lim.rlim_cur = lim.rlim_max;
    return ::setrlimit(RLIMIT_FSIZE, &lim) == 0;
}

void record(int scopes) {
    for (int i = 0; i < scopes; ++i) {
        PROF_SCOPE("work");
    }
}

// Every file under `dir`, relative to it.
std::vector<std::string> files_under(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
    }
    return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int count_ending(const std::vector<std::string>& names, const std::string& tail) {
    int n = 0;
    for (const std::string& name : names) n += ends_with(name, tail);
    return n;
}

// The "X" events named `name` in a JSON document with a list of events (the whole document, or
// its "traceEvents"); -1 if it is not valid JSON.
long spans_named(const std::string& json, const std::string& name) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(json).get(doc) != simdjson::SUCCESS) return -1;
    simdjson::dom::array events;
    if (doc.get_array().get(events) != simdjson::SUCCESS &&
        doc["traceEvents"].get_array().get(events) != simdjson::SUCCESS) {
        return -1;
    }
    long n = 0;
    for (simdjson::dom::element e : events) {
        std::string_view ph, event_name;
        if (e["ph"].get_string().get(ph) == simdjson::SUCCESS && ph == "X" &&
            e["name"].get_string().get(event_name) == simdjson::SUCCESS && event_name == name) {
            ++n;
        }
    }
    return n;
}

// What a child that recorded every output left: how it ended, what it said on stderr, and the
// files under its output folder.
struct TimelinesRun {
    Outcome outcome;
    std::string err;
    std::vector<std::string> names;
};

// Runs `scenario` in a child whose session records the timers, the trace and the pythontimeline,
// every span, into `out` as `run_id`.
TimelinesRun record_timelines(const TempDir& dir, const std::string& out, const char* run_id,
                              const std::function<int()>& scenario) {
    const std::string err_path = dir.str() + "/stderr.txt";
    TimelinesRun r;
    r.outcome = run_bounded(
        [&] {
            record_to(out, run_id, "timers,trace,pythontimeline");
            set_env("RINGPROF_TIMELINE_MIN_NS", "0");
            return scenario();
        },
        stderr_to(err_path));
    r.err = read_text(err_path);
    r.names = files_under(out);
    return r;
}

TEST(FullDisk, ATraceThatCannotBeCompletedIsNamedAndNeverStandsAtItsFinalName) {
    TempDir dir;
    const std::string out = dir.str() + "/out";
    const auto [o, err, names] = record_timelines(dir, out, "full", [&] {
        record(100);
        ringprof::flush();                          // every output has started before the disk fills
        if (!limit_file_size(16 * 1024)) return 9;  // far below the trace's gzip stream
        record(20000);
        return 0;  // a normal exit: the session's end writes the outputs
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << err;
    EXPECT_FALSE(fs::exists(out + "/full_trace.json.gz")) << "a truncated trace at its final name\n" << err;
    EXPECT_TRUE(fs::exists(out + "/full_trace.json.gz.incomplete")) << err;
    EXPECT_EQ(lines_naming(err, "'" + out + "/full_trace.json.gz.incomplete'"), 1) << err;
    EXPECT_EQ(count_ending(names, ".tmp"), 0) << "temporary files left behind\n" << err;
    // The other outputs are whole: the timers file (smaller than the limit) holds every scope.
    const TimerTree timers = load_timers_json(out + "/full_timers.json");
    ASSERT_NE(timers.root.find("work"), nullptr);
    EXPECT_EQ(timers.root.find("work")->count, 20100u);
}

TEST(FullDisk, ADiskFullForAMomentLeavesEveryTimelineWholeAndComplete) {
    TempDir dir;
    const std::string out = dir.str() + "/out";
    constexpr int kBefore = 500, kWhileFull = 1500, kAfter = 500;
    const auto [o, err, names] = record_timelines(dir, out, "moment", [&] {
        set_env("RINGPROF_PYTHONTIMELINE_MAX_BYTES", "100000000");  // one file for the whole run
        record(kBefore);
        ringprof::flush();
        // The pythontimeline file is far past 2 KiB by now: its next write is refused, or cut
        // where the limit falls, mid-record.
        if (!limit_file_size(64 * 1024)) return 9;
        record(kWhileFull);
        ringprof::flush();
        if (!lift_file_size_limit()) return 9;  // the disk has room again
        record(kAfter);
        return 0;
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << err;
    EXPECT_EQ(count_ending(names, ".tmp"), 0) << err;
    EXPECT_EQ(count_ending(names, ".incomplete"), 0) << err;
    std::vector<std::string> timelines;
    for (const std::string& n : names) {
        if (n.rfind("framework/pevents/", 0) == 0 && ends_with(n, "_pythontimeline.json")) timelines.push_back(n);
    }
    ASSERT_EQ(timelines.size(), 1u) << err;
    EXPECT_EQ(spans_named(read_text(out + "/" + timelines[0]), "work"), kBefore + kWhileFull + kAfter)
        << "-1: not valid JSON\n"
        << err;
    const Inflated trace = inflate_gzip(read_text(out + "/moment_trace.json.gz"));
    ASSERT_TRUE(trace.whole()) << err;
    EXPECT_EQ(spans_named(trace.text, "work"), kBefore + kWhileFull + kAfter) << err;
}

TEST(FullDisk, WhileTheDiskStaysFullOneFileIsRetriedAndNothingAccumulates) {
    TempDir dir;
    const std::string out = dir.str() + "/out";
    const auto [o, err, names] = record_timelines(dir, out, "stays", [&] {
        set_env("RINGPROF_PYTHONTIMELINE_MAX_BYTES", "65536");  // a file would rotate every 600 spans
        set_env("RINGPROF_FLUSH_INTERVAL_MS", "10");
        if (!limit_file_size(8 * 1024)) return 9;  // below what a timeline takes in its first writes
        for (int i = 0; i < 100; ++i) {
            record(100);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        return 0;
    });
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << err;
    EXPECT_EQ(count_ending(names, ".tmp"), 0) << "retries left files behind\n" << err;
    EXPECT_EQ(count_ending(names, "_pythontimeline.json"), 0) << "an incomplete timeline under pevents/\n" << err;
    EXPECT_EQ(count_ending(names, "_pythontimeline.json.incomplete"), 1) << err;
    EXPECT_FALSE(fs::exists(out + "/stays_trace.json.gz")) << err;
    EXPECT_EQ(count_ending(names, "_trace.json.gz.incomplete"), 1) << err;
    EXPECT_EQ(lines_naming(err, "_pythontimeline.json.incomplete'"), 1) << err;
}

// ---- an end that gave up --------------------------------------------------------------------------

std::atomic<bool> g_block_final_snapshot{false};

TEST(StreamedOutputs, ATraceThatAnEndGaveUpOnIsNeverAtItsFinalName) {
    TempDir dir;
    const std::string out = dir.str() + "/out";
    const auto [o, err, names] = record_timelines(dir, out, "gaveup", [&] {
        detail::set_exit_wait_for_testing(std::chrono::milliseconds(300));
        record(100);
        ringprof::flush();
        g_block_final_snapshot = true;
        Session::current()->add_backend(std::make_unique<HoldsTheFinalSnapshot>(g_block_final_snapshot));
        record(100);
        return 0;  // exit: the final snapshot blocks, the end gives up
    });
    ASSERT_TRUE(o.finished) << err;
    EXPECT_EQ(o.exit_code, 0) << err;
    EXPECT_FALSE(fs::exists(out + "/gaveup_trace.json.gz")) << "an unfinished trace at its final name\n" << err;
    EXPECT_EQ(count_ending(names, "_pythontimeline.json"), 0) << err;
    // What was flushed is there, under the temporary name a reader does not take for finished.
    int temporary_traces = 0;
    for (const std::string& n : names) {
        temporary_traces +=
            n.rfind("gaveup_trace.json.gz.", 0) == 0 && ends_with(n, ".tmp") && fs::file_size(out + "/" + n) > 0;
    }
    EXPECT_EQ(temporary_traces, 1) << err;
}

}  // namespace
}  // namespace ringprof::testing::full_disk
