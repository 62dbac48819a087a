// ringprof's own timelines merge: the pythontimeline files and the trace.json.gz one session
// writes are read back by `MergedTimeline`, by time and by step, each span once.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"
#include "ringprof/ringprof.hpp"

namespace ringprof {
namespace {

namespace fs = std::filesystem;

// args as written, without spaces, for substring checks.
std::string compact(const std::string& json) {
    std::string out;
    for (char ch : json) {
        if (ch != ' ') out += ch;
    }
    return out;
}

std::size_t count_named(const std::vector<merge_test::OutEvent>& events, const std::string& name) {
    std::size_t n = 0;
    for (const auto& e : events) n += e.name == name ? 1 : 0;
    return n;
}

TEST(MergeRingprofOutput, BothTimelinesOfASessionMergeOnceByTimeAndByStep) {
    const fs::path dir = fs::path(RINGPROF_TEST_BINARY_DIR) / "tmp" / "merge_ringprof_output";
    fs::remove_all(dir);
    Config c;
    c.output_dir = (dir / "out").string();
    c.run_id = "run";
    c.backends = {"pythontimeline", "trace"};
    {
        Session session(c);
        for (int step = 0; step < 5; ++step) {
            PROF_STEP(step);
            PROF_SCOPE("train");
            std::thread([] { PROF_SCOPE("env_work"); }).join();
        }
    }
    ASSERT_TRUE(fs::exists(dir / "out" / "run_trace.json.gz"));

    MergedTimeline all(c.output_dir, {}, (dir / "merged_all").string());
    const MergeResult r = all.merge_all();
    EXPECT_TRUE(r.complete()) << (r.skipped.empty() ? "" : r.skipped[0].path + ": " + r.skipped[0].reason);
    EXPECT_GE(r.files_merged, 1u);
    const auto events = merge_test::only_x(merge_test::read_output(r.output_path));
    EXPECT_EQ(count_named(events, "train"), 5u) << "the pythontimeline files and the trace are one run: merged once";
    EXPECT_EQ(count_named(events, "env_work"), 5u);
    bool named = false;
    for (const std::string& n : r.notes) named = named || n.find("run_trace.json.gz: left out") != std::string::npos;
    EXPECT_TRUE(named) << "the left-out trace is named in the notes";

    MergedTimeline by_step(c.output_dir, {"pythontimeline.json"}, (dir / "merged_steps").string());
    const MergeResult s = by_step.merge_timeline(1, 3, MergeUnit::step);
    const auto step_events = merge_test::only_x(merge_test::read_output(s.output_path));
    // Steps 1 and 2. Like smdebug, an event is kept when it overlaps the closed range, so the
    // steps that touch its ends (0 ends where 1 begins; 3 begins where the range ends) may come
    // too; step 4 never.
    std::string steps_seen;
    std::size_t step_events_seen = 0;
    for (const auto& e : step_events) {
        if (e.name != "Step:ModeKeys.TRAIN") continue;
        steps_seen += compact(e.args_json);
        ++step_events_seen;
    }
    EXPECT_NE(steps_seen.find("\"step_num\":\"1\""), std::string::npos) << steps_seen;
    EXPECT_NE(steps_seen.find("\"step_num\":\"2\""), std::string::npos) << steps_seen;
    EXPECT_EQ(steps_seen.find("\"step_num\":\"4\""), std::string::npos) << steps_seen;
    EXPECT_GE(step_events_seen, 2u);
    // Each step's scope carries its step number, so exactly one "train" of step 1 and of step 2.
    std::size_t train_1 = 0, train_2 = 0;
    for (const auto& e : step_events) {
        if (e.name != "train") continue;
        const std::string args = compact(e.args_json);
        train_1 += args.find("\"step_num\":\"1\"") != std::string::npos ? 1 : 0;
        train_2 += args.find("\"step_num\":\"2\"") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(train_1, 1u);
    EXPECT_EQ(train_2, 1u);
}

// A trace of another process in the same folder is still merged beside the session's files.
TEST(MergeRingprofOutput, AnotherRunsTraceBesideTheSessionsFilesIsStillMerged) {
    const fs::path dir = fs::path(RINGPROF_TEST_BINARY_DIR) / "tmp" / "merge_ringprof_two_runs";
    fs::remove_all(dir);
    Config c;
    c.output_dir = (dir / "out").string();
    c.run_id = "run";
    c.backends = {"pythontimeline", "trace"};
    {
        Session session(c);
        for (int step = 0; step < 3; ++step) {
            PROF_STEP(step);
            PROF_SCOPE("train");
        }
    }
    // Another process (pid 1, host "elsewhere") wrote only a trace, as ringprof writes it.
    const std::string other =
        "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"other\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"args\":{\"labels\":\"host elsewhere, "
        "start_time_since_epoch_in_micros 1000\"}},\n"
        "{\"ph\":\"M\",\"name\":\"start\",\"pid\":1,\"args\":{\"start_time_since_epoch_in_micros\":1000}},\n"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"other_work\",\"ts\":5,\"dur\":10}\n]}";
    merge_test::write_gzip((dir / "out" / "other_trace.json.gz").string(), other);

    MergedTimeline all(c.output_dir, {}, (dir / "merged").string());
    const MergeResult r = all.merge_all();
    EXPECT_TRUE(r.complete()) << (r.skipped.empty() ? "" : r.skipped[0].path + ": " + r.skipped[0].reason);
    const auto events = merge_test::only_x(merge_test::read_output(r.output_path));
    EXPECT_EQ(count_named(events, "train"), 3u);
    EXPECT_EQ(count_named(events, "other_work"), 1u);
}

}  // namespace
}  // namespace ringprof
