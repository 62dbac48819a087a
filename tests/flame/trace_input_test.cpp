// `ringprof flame` on traces: events nest by time per thread, threads merge with the parallel flag.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>

#include "flame_test_trees.hpp"
#include "gzip_text.hpp"
#include "ringprof/flame.hpp"

namespace {

std::string out_dir() {
    const std::string dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/flame_trace_inputs";
    std::filesystem::create_directories(dir);
    return dir;
}

std::string write_gz(const std::string& name, const std::string& text) {
    const std::string path = out_dir() + "/" + name;
    EXPECT_TRUE(ringprof::testing::write_gzip_file(path, text)) << path;
    return path;
}

std::string write_plain(const std::string& name, const std::string& text) {
    const std::string path = out_dir() + "/" + name;
    flame_test::write_text(path, text);
    return path;
}

// Two threads; thread 1 uses X events written out of order (Chrome writes them when they end),
// thread 2 uses B/E. "step" runs on both, so it is parallel in the merged tree.
const char kTrace[] = R"({"displayTimeUnit": "ns", "otherData": {"note": "[not the events]"}, "traceEvents": [
{"name": "thread_name", "ph": "M", "pid": 7, "tid": 1, "args": {"name": "main"}},
{"name": "forward", "ph": "X", "pid": 7, "tid": 1, "ts": 100.0, "dur": 300.0, "cat": "x"},
{"name": "step", "ph": "X", "pid": 7, "tid": 1, "ts": 0, "dur": 1000},
{"name": "backward", "ph": "X", "pid": 7, "tid": 1, "ts": 500, "dur": 400.5},
{"name": "step", "ph": "X", "pid": 7, "tid": 1, "ts": 1000, "dur": 1000},
{"name": "counter", "ph": "C", "pid": 7, "tid": 1, "ts": 5, "args": {"value": 3}},
{"name": "step", "ph": "B", "pid": 7 , "tid": 2 , "ts": 200},
{"name": "load", "ph": "B", "pid": 7, "tid": 2, "ts": 250},
{"name": "load", "ph": "E", "pid": 7, "tid": 2, "ts": 450},
{"name": "step", "ph": "E", "pid": 7, "tid": 2, "ts": 1200}
], "metadata": {"x": 1}})";

TEST(TraceInput, BuildsPerThreadAndMergedTrees) {
    const ringprof::FlameProfile p = ringprof::load_flame_profile(write_gz("two_threads.trace.json.gz", kTrace));
    ASSERT_EQ(p.threads.size(), 2u);
    EXPECT_EQ(p.threads[0].label, "main (tid 1)");
    EXPECT_EQ(p.threads[1].label, "tid 2");

    const ringprof::TimerNode& main = p.threads[0].tree;
    ASSERT_EQ(main.children.size(), 1u);
    const ringprof::TimerNode& step = main.children[0];
    EXPECT_EQ(step.name, "step");
    EXPECT_EQ(step.count, 2u);
    EXPECT_NEAR(step.total, 2000e-6, 1e-12);
    ASSERT_EQ(step.children.size(), 2u);
    EXPECT_EQ(step.children[0].name, "forward");
    EXPECT_EQ(step.children[1].name, "backward");
    EXPECT_NEAR(step.children[1].total, 400.5e-6, 1e-12);
    EXPECT_NEAR(main.total, 2000e-6, 1e-12);

    const ringprof::TimerNode* load = p.threads[1].tree.find_path("step/load");
    ASSERT_NE(load, nullptr);
    EXPECT_NEAR(load->total, 200e-6, 1e-12);

    const ringprof::TimerNode* merged_step = p.merged.find("step");
    ASSERT_NE(merged_step, nullptr);
    EXPECT_TRUE(merged_step->is_parallel);
    EXPECT_EQ(merged_step->count, 3u);
    EXPECT_NEAR(merged_step->total, 3000e-6, 1e-12);
    EXPECT_FALSE(merged_step->find("forward")->is_parallel);
    EXPECT_NEAR(p.merged.total, 2000e-6, 1e-12);  // wall span of all events
}

TEST(TraceInput, TimelineHasALanePerThreadWithSpansNestedByTime) {
    const ringprof::FlameProfile p =
        ringprof::load_flame_profile(write_gz("two_threads_timeline.trace.json.gz", kTrace));
    const ringprof::FlameTimeline& tl = p.timeline;
    ASSERT_EQ(tl.lanes.size(), 2u);
    EXPECT_EQ(tl.lanes[0].label, p.threads[0].label);
    EXPECT_EQ(tl.lanes[1].label, p.threads[1].label);
    struct Want {
        const char* name;
        std::int64_t start_ns, dur_ns;
        std::uint32_t depth;
    };
    const std::vector<std::vector<Want>> want = {{{"step", 0, 1'000'000, 0},
                                                  {"forward", 100'000, 300'000, 1},
                                                  {"backward", 500'000, 400'500, 1},
                                                  {"step", 1'000'000, 1'000'000, 0}},
                                                 {{"step", 200'000, 1'000'000, 0}, {"load", 250'000, 200'000, 1}}};
    for (std::size_t l = 0; l < want.size(); ++l) {
        ASSERT_EQ(tl.lanes[l].spans.size(), want[l].size()) << l;
        for (std::size_t i = 0; i < want[l].size(); ++i) {
            const ringprof::FlameSpan& sp = tl.lanes[l].spans[i];
            EXPECT_EQ(tl.names.at(sp.name), want[l][i].name) << l << "/" << i;
            EXPECT_EQ(sp.start_ns, want[l][i].start_ns) << l << "/" << i;
            EXPECT_EQ(sp.dur_ns, want[l][i].dur_ns) << l << "/" << i;
            EXPECT_EQ(sp.depth, want[l][i].depth) << l << "/" << i;
        }
    }
    EXPECT_EQ(tl.duration_ns, 2'000'000);
    EXPECT_EQ(tl.spans_seen, 6u);
    EXPECT_EQ(tl.note, "all 6 spans of the trace");
}

TEST(TraceInput, TimelineMarksStepsAndKeepsTheLongestSpansUpToTheCap) {
    // kFlameTimelineMaxSpans + 10 spans, one a microsecond longer than the one before, in steps of 1,000.
    const std::size_t n = ringprof::kFlameTimelineMaxSpans + 10;
    std::string text = "[";
    for (std::size_t i = 0; i < n; ++i) {
        text += (i ? ",\n" : "") + std::string(R"({"name": "s", "ph": "X", "pid": 1, "tid": 1, "ts": )") +
                std::to_string(i * 100'000) + R"(, "dur": )" + std::to_string(i + 1) + R"(, "args": {"step_num": ")" +
                std::to_string(i / 1000) + "\"}}";
    }
    text += "]";
    const ringprof::FlameProfile p = ringprof::load_flame_profile(write_plain("many_spans.json", text));
    const ringprof::FlameTimeline& tl = p.timeline;
    ASSERT_EQ(tl.lanes.size(), 1u);
    ASSERT_EQ(tl.lanes[0].spans.size(), ringprof::kFlameTimelineMaxSpans);
    EXPECT_EQ(tl.lanes[0].spans.front().dur_ns, 11'000) << "the ten shortest are the ones left out";
    EXPECT_EQ(tl.spans_seen, n);
    EXPECT_NE(tl.note.find("the 60000 longest of the trace's 60010 spans"), std::string::npos) << tl.note;
    ASSERT_EQ(tl.steps.size(), (n + 999) / 1000);
    EXPECT_EQ(tl.steps[1].step, 1);
    EXPECT_EQ(tl.steps[1].start_ns, 1000 * 100'000'000LL);  // span 1000 starts at 100,000 us
    EXPECT_EQ(tl.steps[1].end_ns, 1999 * 100'000'000LL + 2'000'000);
}

// A ringprof trace's times sit on a 2^-10 us grid from the run's start, read onto its epoch base
// (~1.8e15 us, where a double holds quarter microseconds). Spans touch: each child begins where
// the one before it ends, the last ends with its parent, the next parent begins there. Rounded
// start plus the file's dur could end a span past the next one's rounded start, making a sibling
// its child. Each span lasts at least one step of the doubles: a shorter one can round to nothing
// at the instant its sibling begins, and then which came first is not in the numbers.
TEST(TraceInput, SpansTouchingOnAnEpochBaseNestAsTheyRan) {
    constexpr int kParents = 3000;
    std::mt19937_64 random(52);
    std::uniform_int_distribution<std::int64_t> ticks(256, 4000);  // 2^-10 us each
    std::string trace =
        "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"start\",\"pid\":7,\"args\":{"
        "\"start_time_since_epoch_in_micros\":1780000000123457}}";
    const auto us = [](std::int64_t t) { return fmt::format("{}", static_cast<double>(t) / 1024); };
    std::int64_t t = 0;
    for (int i = 0; i < kParents; ++i) {
        const std::int64_t a = t + ticks(random), b = a + ticks(random), end = b + ticks(random);
        const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> spans[] = {
            {"parent", {t, end}}, {"a", {t, a}}, {"b", {a, b}}, {"c", {b, end}}};
        for (const auto& [name, span] : spans) {
            trace += fmt::format(",\n{{\"ph\":\"X\",\"pid\":7,\"tid\":1,\"name\":\"{}\",\"ts\":{},\"dur\":{}}}", name,
                                 us(span.first), us(span.second - span.first));
        }
        t = end;
    }
    trace += "\n]}";
    const ringprof::FlameProfile p = ringprof::load_flame_profile(write_gz("touching_on_epoch.trace.json.gz", trace));
    ASSERT_EQ(p.threads.size(), 1u);
    const ringprof::TimerNode& root = p.threads[0].tree;
    ASSERT_EQ(root.children.size(), 1u) << "a parent nested in the one before it";
    EXPECT_EQ(root.children[0].name, "parent");
    EXPECT_EQ(root.children[0].count, static_cast<std::uint64_t>(kParents));
    ASSERT_EQ(root.children[0].children.size(), 3u);
    for (const ringprof::TimerNode& child : root.children[0].children) {
        EXPECT_EQ(child.count, static_cast<std::uint64_t>(kParents)) << child.name;
        EXPECT_TRUE(child.children.empty()) << child.name << " holds the sibling that began where it ended";
    }
}

TEST(TraceInput, ReadsBareArraysUncompressed) {
    const std::string text = R"([
{"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": 10, "dur": 90, "args": {"step_num": "0"}},
{"name": "Forward", "pid": 1, "ph": "X", "ts": 20, "dur": 30}
])";
    const ringprof::FlameProfile p = ringprof::load_flame_profile(write_plain("pythontimeline.json", text));
    ASSERT_NE(p.merged.find_path("Step:ModeKeys.TRAIN/Forward"), nullptr);
}

TEST(TraceInput, UnclosedBeginRunsToTheThreadsLastEvent) {
    const std::string text = R"([{"name": "a", "ph": "B", "pid": 1, "tid": 1, "ts": 0},
{"name": "b", "ph": "X", "pid": 1, "tid": 1, "ts": 10, "dur": 40}])";
    const ringprof::FlameProfile p = ringprof::load_flame_profile(write_plain("unclosed.json", text));
    const ringprof::TimerNode* a = p.merged.find("a");
    ASSERT_NE(a, nullptr);
    EXPECT_NEAR(a->total, 50e-6, 1e-12);
    EXPECT_NE(a->find("b"), nullptr);
}

void expect_error(const std::string& path, const std::string& fragment) {
    try {
        ringprof::load_flame_profile(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const ringprof::FlameInputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
        EXPECT_NE(what.find(fragment), std::string::npos) << what;
    }
}

TEST(TraceInput, BadInputsNameTheFileAndTheProblem) {
    expect_error(out_dir() + "/missing.json", "cannot open");
    expect_error(write_plain("empty.json", "  \n"), "empty");
    expect_error(write_plain("text.json", "hello"), "not a timers JSON or trace");
    expect_error(write_plain("truncated.json", std::string(kTrace).substr(0, 300)), "ends inside");
    // A malformed event is left out and named, by the reader `ringprof merge` shares.
    expect_error(write_plain("bad_event.json", R"([{"name": "a", "ph": "X", "ts": "soon", "dur": 1}])"),
                 "event #0 (X) lacks");
    expect_error(write_plain("bad_json_event.json", "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": tru}]"),
                 "invalid JSON in event #0: not a JSON value (a misspelt true, false or null?) (at byte 32)");
    expect_error(write_plain("no_spans.json", R"([{"name": "c", "ph": "C", "ts": 1}])"), "no complete (X)");

    std::string gz = flame_test::read_text(write_gz("whole.json.gz", kTrace));
    expect_error(write_plain("cut.json.gz", gz.substr(0, gz.size() / 2)), "truncated");
}

}  // namespace
