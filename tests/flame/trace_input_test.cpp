// `ringprof flame` on traces: events nest by time per thread, threads merge with the parallel flag.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"

namespace {

std::string out_dir() {
    const std::string dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/flame_trace_inputs";
    std::filesystem::create_directories(dir);
    return dir;
}

std::string write_gz(const std::string& name, const std::string& text) {
    const std::string path = out_dir() + "/" + name;
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(f);
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
