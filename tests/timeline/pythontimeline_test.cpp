// pythontimeline files read back: smdebug's layout and naming, the time base in every file,
// threads declared before use, one step event per step, nesting, rotation, complete JSON in
// pevents/ at every moment, and a clear message for an unwritable folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>

#include "pythontimeline_backend.hpp"
#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

void leaf() { PROF_SCOPE("leaf"); }
void middle() {
    PROF_SCOPE("middle");
    leaf();
    leaf();
}

struct ParsedFile {
    std::filesystem::path path;
    std::vector<Ev> events;
    std::int64_t base_us = 0;
};

ParsedFile parse_pythontimeline(const std::filesystem::path& p) {
    ParsedFile f;
    f.path = p;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    const std::string text = read_text(p);
    EXPECT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << p << " is not complete JSON";
    simdjson::dom::array arr;
    if (doc.get(arr) != simdjson::SUCCESS) return f;
    f.events = events_of(arr);
    // The time base: the first two elements of every file.
    EXPECT_GE(f.events.size(), 2u);
    if (f.events.size() >= 2) {
        EXPECT_EQ(f.events[0].name, "process_name");
        EXPECT_EQ(f.events[0].pid, 0);
        EXPECT_EQ(f.events[1].name, "process_sort_index");
    }
    simdjson::dom::element first = arr.at(0);
    std::int64_t base = 0;
    EXPECT_EQ(first["args"]["start_time_since_epoch_in_micros"].get(base), simdjson::SUCCESS);
    f.base_us = base;
    return f;
}

// Every X event's (pid, tid) was declared by process_name / thread_name earlier in the file,
// and the file's name covers its events.
void check_file_rules(const ParsedFile& f) {
    std::set<std::int64_t> phases;
    std::set<std::pair<std::int64_t, std::int64_t>> threads;
    double max_end = 0;
    for (const Ev& e : f.events) {
        if (e.ph == "M" && e.name == "process_name" && !e.arg_name.empty()) phases.insert(e.pid);
        if (e.ph == "M" && e.name == "thread_name") {
            EXPECT_TRUE(phases.count(e.pid)) << "thread_name before its phase in " << f.path;
            threads.insert({e.pid, e.tid});
        }
        if (e.ph == "X") {
            EXPECT_FALSE(e.name.empty());
            EXPECT_TRUE(phases.count(e.pid)) << e.name << " in an undeclared phase in " << f.path;
            EXPECT_TRUE(threads.count({e.pid, e.tid})) << e.name << " on an undeclared thread in " << f.path;
            EXPECT_EQ(e.dur, std::floor(e.dur)) << "smdebug writes whole microseconds";
            max_end = std::max(max_end, e.ts + e.dur + static_cast<double>(f.base_us));
        }
    }
    const std::string name = f.path.filename().string();
    const auto underscore = name.find('_');
    ASSERT_NE(underscore, std::string::npos);
    const double end_us = std::stod(name.substr(0, underscore));
    EXPECT_GE(end_us, max_end) << "a file named earlier than its events is missed by smdebug's range queries";
    const std::string node = name.substr(underscore + 1, name.rfind("_pythontimeline.json") - underscore - 1);
    EXPECT_EQ(node.find('_'), std::string::npos);
    // The folder is the UTC hour of END_US.
    const std::time_t secs = static_cast<std::time_t>(end_us / 1e6);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char hour[16];
    std::strftime(hour, sizeof hour, "%Y%m%d%H", &tm);
    EXPECT_EQ(f.path.parent_path().filename().string(), hour);
}

TEST(PythonTimeline, NodeIdFollowsSmdebug) {
    EXPECT_EQ(backends::PythonTimelineBackend::node_id(42, "my_host_1"), "42-my-host-1");
}

TEST(PythonTimeline, StepsThreadsAndNestingReadBack) {
    TempDir dir;
    constexpr int kSteps = 4;
    constexpr int kWorkerCalls = 50;
    {
        Session session(timeline_config(dir.str(), {"pythontimeline"}));
        set_thread_name("trainer");
        std::atomic<bool> go{false};
        std::thread worker([&] {
            set_thread_name("worker_a");
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < kWorkerCalls; ++i) middle();
        });
        for (int s = 0; s < kSteps; ++s) {
            PROF_STEP(s);
            PROF_SCOPE("train_step");
            middle();
            if (s == 1) go.store(true);
        }
        {
            PROF_STEP_MODE(0, StepMode::Eval);
            leaf();
        }
        worker.join();
    }
    const auto files = pevents_files(dir.path());
    ASSERT_EQ(files.size(), 1u);
    for (const auto& e : std::filesystem::directory_iterator(dir.path() / "framework")) {
        EXPECT_NE(e.path().extension(), ".tmp") << "closed files are renamed into pevents/";
    }
    const ParsedFile f = parse_pythontimeline(files[0]);
    check_file_rules(f);
    expect_nested(f.events);

    std::map<std::string, int> counts;
    std::vector<std::string> train_steps;
    std::map<std::int64_t, std::string> phase_names;
    for (const Ev& e : f.events) {
        if (e.ph == "M" && e.name == "process_name" && !e.arg_name.empty()) phase_names[e.pid] = e.arg_name;
        if (e.ph != "X") continue;
        ++counts[e.name];
        if (e.name == "Step:ModeKeys.TRAIN") {
            train_steps.push_back(e.step_num);
            EXPECT_EQ(phase_names[e.pid], "Step:ModeKeys.TRAIN") << "a step lives in the phase of its name";
            EXPECT_EQ(e.args_pid, ::getpid());
        }
    }
    EXPECT_EQ(train_steps, (std::vector<std::string>{"0", "1", "2", "3"}));
    EXPECT_EQ(counts["Step:ModeKeys.EVAL"], 1);
    EXPECT_EQ(counts["train_step"], kSteps);
    EXPECT_EQ(counts["middle"], kSteps + kWorkerCalls);
    EXPECT_EQ(counts["leaf"], 2 * (kSteps + kWorkerCalls) + 1);

    // Thread names are declared for every thread that has events.
    std::set<std::string> thread_names;
    for (const Ev& e : f.events) {
        if (e.ph == "M" && e.name == "thread_name") thread_names.insert(e.arg_name);
    }
    EXPECT_TRUE(thread_names.count("trainer"));
    EXPECT_TRUE(thread_names.count("worker_a"));

    // Scopes inside a step carry its number.
    for (const Ev& e : f.events) {
        if (e.ph == "X" && e.name == "train_step") {
            EXPECT_FALSE(e.step_num.empty());
        }
    }
}

TEST(PythonTimeline, RotatesBySizeAndEveryFileIsComplete) {
    TempDir dir;
    Config c = timeline_config(dir.str(), {"pythontimeline"});
    c.pythontimeline_max_bytes = 4096;
    const int calls = 600;
    {
        Session session(c);
        for (int s = 0; s < 3; ++s) {
            PROF_STEP(s);
            for (int i = 0; i < calls / 3; ++i) middle();
        }
    }
    const auto files = pevents_files(dir.path());
    ASSERT_GT(files.size(), 5u);
    int middles = 0, steps = 0;
    for (const auto& p : files) {
        const ParsedFile f = parse_pythontimeline(p);
        check_file_rules(f);
        EXPECT_LT(std::filesystem::file_size(p), 4096u + 1024u) << "rotation keeps files near the limit";
        for (const Ev& e : f.events) {
            middles += e.ph == "X" && e.name == "middle";
            steps += e.ph == "X" && e.name == "Step:ModeKeys.TRAIN";
        }
    }
    EXPECT_EQ(middles, calls);
    EXPECT_EQ(steps, 3);
}

TEST(PythonTimeline, FilesInPeventsAreCompleteJsonWhileRunning) {
    TempDir dir;
    Config c = timeline_config(dir.str(), {"pythontimeline"});
    c.pythontimeline_max_bytes = 8192;
    Session session(c);
    std::atomic<bool> stop{false};
    std::thread producer([&] {
        for (long i = 0; !stop.load(); ++i) {
            PROF_STEP(i);
            middle();
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    });
    // Between a rotation and the next span no file is open, so the open one is looked for at
    // every round, not once at the end, when the last span may just have rotated the file (as
    // it does under TSan's timing).
    const auto tmp =
        dir.path() / "framework" /
        (backends::PythonTimelineBackend::node_id(::getpid(), session.run_info().host) + "_pythontimeline.json.tmp");
    bool saw_open_file = false;
    std::set<std::filesystem::path> seen;
    int checked = 0;
    for (int round = 0; round < 50 && (checked < 8 || !saw_open_file); ++round) {
        flush();
        saw_open_file = saw_open_file || std::filesystem::exists(tmp);
        for (const auto& p : pevents_files(dir.path())) {
            if (!seen.insert(p).second) continue;
            simdjson::dom::parser parser;
            simdjson::dom::element doc;
            ASSERT_EQ(parser.parse(read_text(p)).get(doc), simdjson::SUCCESS) << p << " incomplete mid-run";
            ++checked;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop.store(true);
    producer.join();
    EXPECT_GT(checked, 0) << "the run rotated no file to check";
    EXPECT_TRUE(saw_open_file) << "the open file lives outside pevents/";
}

TEST(PythonTimeline, RotatesByAgeWhenIdle) {
    TempDir dir;
    Config c = timeline_config(dir.str(), {"pythontimeline"});
    c.pythontimeline_max_seconds = 1;
    Session session(c);
    middle();
    flush();
    // The writer wakes about every 100 ms while idle and closes a file older than the limit.
    for (int i = 0; i < 40 && pevents_files(dir.path()).empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto files = pevents_files(dir.path());
    ASSERT_EQ(files.size(), 1u);
    check_file_rules(parse_pythontimeline(files[0]));
}

TEST(PythonTimeline, UnwritableFolderIsReportedOnceNamingTheFile) {
    TempDir dir;
    // A regular file where the "framework" folder should be.
    std::ofstream(dir.path() / "framework") << "x";
    ::testing::internal::CaptureStderr();
    {
        Session session(timeline_config(dir.str(), {"pythontimeline", "timers"}));
        for (int i = 0; i < 10; ++i) middle();
        flush();
        for (int i = 0; i < 10; ++i) middle();
        const Snapshot s = session.snapshot();
        const TimerNode* m = s.tree.root.find("middle");
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(m->count, 20u) << "aggregates keep everything";
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    const std::string folder = dir.str() + "/framework";
    EXPECT_NE(err.find(folder), std::string::npos) << err;
    EXPECT_EQ(err.find(folder), err.rfind(folder)) << "said once: " << err;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "t_timers.json"));
}

}  // namespace
}  // namespace ringprof
