// ringprof's own timelines merge: the pythontimeline files and the trace.json.gz one session
// writes are read back by `MergedTimeline`, by time and by step, each span once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <fmt/format.h>

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

// A span of the merged file as consumers read it, and exactly: the number texts are decimals of
// doubles, which long double holds whole at this size (a 2^51 us base and quarter microseconds).
struct MergedSpan {
    long double ts_exact, end_exact;
    double ts, end;  // as Chrome, Perfetto and Python parse and add them
};

std::string_view number_after(std::string_view line, std::string_view key) {
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos) return {};
    const std::size_t from = at + key.size();
    return line.substr(from, line.find_first_of(",}", from) - from);
}

// `inexact`: the number texts that are not a double's exact value.
std::map<std::string, std::vector<MergedSpan>> merged_spans_by_thread(const std::string& path, std::size_t& inexact) {
    std::map<std::string, std::vector<MergedSpan>> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find("\"ph\": \"X\"") == std::string::npos) continue;
        const std::string ts(number_after(line, "\"ts\": ")), dur(number_after(line, "\"dur\": "));
        const std::string tid(number_after(line, "\"tid\": "));
        const long double ts_x = std::strtold(ts.c_str(), nullptr), dur_x = std::strtold(dur.c_str(), nullptr);
        inexact += ts_x != static_cast<long double>(std::strtod(ts.c_str(), nullptr));
        inexact += dur_x != static_cast<long double>(std::strtod(dur.c_str(), nullptr));
        const double ts_d = std::strtod(ts.c_str(), nullptr);
        out[tid].push_back({ts_x, ts_x + dur_x, ts_d, ts_d + std::strtod(dur.c_str(), nullptr)});
    }
    return out;
}

// Spans of one thread, each a parent, sibling or child of the others: counts the spans that end
// past the one still open around them, comparing starts and ends as `Time` holds them.
template <typename Time>
std::size_t crossings(std::vector<MergedSpan> spans, Time MergedSpan::*ts, Time MergedSpan::*end) {
    std::stable_sort(spans.begin(), spans.end(), [&](const MergedSpan& a, const MergedSpan& b) {
        return a.*ts != b.*ts ? a.*ts < b.*ts : a.*end > b.*end;
    });
    std::size_t crossed = 0;
    std::vector<Time> open_ends;
    for (const MergedSpan& s : spans) {
        while (!open_ends.empty() && open_ends.back() <= s.*ts) open_ends.pop_back();
        if (!open_ends.empty() && s.*end > open_ends.back()) ++crossed;
        open_ends.push_back(s.*end);
    }
    return crossed;
}

// ringprof's trace holds times on a 2^-10 us grid from the run's start, and its spans touch: a
// child ends in the nanosecond its parent ends, the next begins where one ends. Merged, each time
// sits on a ~1.8e15 us base where a double's step is 0.25 us: added to a rounded ts, the file's dur
// could end a child past its parent, which Chrome leaves off the track ("cannot nest").
TEST(MergeRingprofOutput, TouchingSpansOfATraceStillNestOnceMergedAsConsumersAddTsAndDur) {
    merge_test::TempDir dir;
    constexpr std::int64_t kRunStart = 1780000000123457;  // us since the epoch, odd: off any grid
    constexpr int kParents = 20000;
    std::mt19937_64 random(49);
    std::uniform_int_distribution<std::int64_t> ticks(1, 4000);  // 2^-10 us each
    std::string trace = fmt::format(
        "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
        "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{{\"name\":\"run\"}}}},\n"
        "{{\"ph\":\"M\",\"name\":\"start\",\"pid\":7,\"args\":{{\"start_time_since_epoch_in_micros\":{}}}}}",
        kRunStart);
    const auto us = [](std::int64_t t) { return fmt::format("{}", static_cast<double>(t) / 1024); };
    // Where each span starts and ends, as one rounding of its exact time puts it.
    const auto at = [](std::int64_t t) { return static_cast<double>(kRunStart + static_cast<long double>(t) / 1024); };
    std::vector<std::pair<double, double>> expected;
    std::int64_t t = 0;  // in grid ticks from the run's start
    for (int i = 0; i < kParents; ++i) {
        const std::int64_t a = t + ticks(random), b = a + ticks(random), end = b + ticks(random);
        const std::int64_t bounds[][2] = {{t, end}, {t, a}, {a, b}, {b, end}};  // a parent, then its children
        for (const auto& span : bounds) {
            trace += fmt::format(",\n{{\"ph\":\"X\",\"pid\":7,\"tid\":{},\"name\":\"s\",\"ts\":{},\"dur\":{}}}", i % 2,
                                 us(span[0]), us(span[1] - span[0]));
            expected.emplace_back(at(span[0]), at(span[1]));
        }
        t = end;  // the next parent begins where this one ends
    }
    trace += "\n]}";
    merge_test::write_gzip(dir.path() / "run_trace.json.gz", trace);

    MergedTimeline merger(dir.str(), {"trace.json.gz"}, (dir.path() / "merged").string());
    merger.set_system_metrics(false);
    const MergeResult r = merger.merge_all();
    ASSERT_TRUE(r.complete()) << (r.skipped.empty() ? "" : r.skipped[0].path + ": " + r.skipped[0].reason);
    std::size_t inexact = 0;
    const auto by_thread = merged_spans_by_thread(r.output_path, inexact);
    EXPECT_EQ(inexact, 0u) << "times whose text is not the double consumers read";
    EXPECT_EQ(by_thread.size(), 2u);
    std::vector<std::pair<double, double>> merged;
    for (const auto& [tid, list] : by_thread) {
        EXPECT_EQ(crossings(list, &MergedSpan::ts_exact, &MergedSpan::end_exact), 0u)
            << "in exact decimals, tid " << tid;
        EXPECT_EQ(crossings(list, &MergedSpan::ts, &MergedSpan::end), 0u) << "as consumers add doubles, tid " << tid;
        for (const MergedSpan& s : list) merged.emplace_back(s.ts, s.end);
    }
    // And no span moved further than that one rounding of its start and of its end.
    std::sort(merged.begin(), merged.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_TRUE(merged == expected) << merged.size() << " spans merged of " << expected.size();
}

}  // namespace
}  // namespace ringprof
