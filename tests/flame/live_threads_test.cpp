// A real session's flame page: every thread that recorded a scope has a view, named as the
// timelines name it, with its own time; the page's timeline is the run's spans.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <map>
#include <thread>
#include <set>

#include "flame_html_backend.hpp"
#include "demo_shaped_run.hpp"
#include "flame_test_trees.hpp"
#include "trace/byte_source.hpp"
#include "page_data.hpp"
#include "ringprof/flame.hpp"

namespace {

std::string inflate_file(const std::string& path) {
    auto src = ringprof::detail::open_trace_file(path);
    std::string out;
    char buf[1 << 16];
    while (const std::size_t n = src->read(buf, sizeof buf)) out.append(buf, n);
    return out;
}

// tid -> name from the Chrome trace's thread_name metadata events.
std::map<std::string, std::string> trace_thread_names(const std::string& path) {
    simdjson::dom::parser parser;
    std::map<std::string, std::string> out;
    const simdjson::padded_string text(inflate_file(path));
    for (simdjson::dom::element e : parser.parse(text)["traceEvents"].get_array()) {
        std::string_view name;
        if (e["name"].get(name) || name != "thread_name") continue;
        out[std::to_string(int64_t(e["tid"]))] = std::string(std::string_view(e["args"]["name"]));
    }
    return out;
}

TEST(FlameLive, EveryThreadGetsAViewNamedAsTheTimelineNamesItExitedOnesIncluded) {
    const flame_test::DemoShapedRun run = flame_test::run_demo_shaped("live_threads");
    ASSERT_TRUE(run.finished) << "the demo-shaped run did not finish within its deadline";
    ASSERT_EQ(run.exit_code, 0);
    ASSERT_EQ(run.worker_tids.size(), 2u);

    simdjson::dom::parser parser;
    const simdjson::padded_string data(flame_test::page_data(flame_test::read_text(run.html)));
    const simdjson::dom::element doc = parser.parse(data);
    EXPECT_EQ(int64_t(doc["threads"]), 5);
    const simdjson::dom::array names = doc["names"].get_array();
    const std::map<std::string, std::string> trace_names = trace_thread_names(run.trace);

    std::set<std::string> labels;
    std::size_t exited = 0;
    bool first = true;
    for (simdjson::dom::element view : doc["views"].get_array()) {
        if (first) {  // the merged view
            first = false;
            continue;
        }
        const std::string label{std::string_view(view["label"])};
        const std::string detail{std::string_view(view["detail"])};
        labels.insert(label);
        exited += detail.find("exited") != std::string::npos;
        // "tid N[, exited]": the timeline's name for tid N is the view's label.
        const std::string tid =
            detail.substr(4, detail.find(',') == std::string::npos ? std::string::npos : detail.find(',') - 4);
        ASSERT_TRUE(trace_names.count(tid)) << "tid " << tid << " has no thread_name in the trace";
        EXPECT_EQ(trace_names.at(tid), label);
        // The view's own time: the root holds its thread's time, not 0.
        EXPECT_GT(double(view["t"].at(0)), 0.0) << label;
        std::set<std::string> node_names;
        for (simdjson::dom::element id : view["n"].get_array())
            node_names.insert(std::string(std::string_view(names.at(uint64_t(id)))));
        EXPECT_TRUE(node_names.count(label == "trainer" ? "train_step" : "env_step")) << label;
    }
    const std::set<std::string> expected = {"trainer", "env_worker_0", "env_worker_1", "thread " + run.worker_tids[0],
                                            "thread " + run.worker_tids[1]};
    EXPECT_EQ(labels, expected);
    EXPECT_EQ(exited, 4u) << "the four workers exited before the session ended";
}

TEST(FlameLive, PageTimelineKeepsTheLongestSpansPerThreadWithEveryStep) {
    ringprof::backends::FlameHtmlBackend b(20'000, 0, /*max_spans=*/3);
    ringprof::RunInfo run;
    run.run_id = "t";
    run.output_dir = "/nonexistent";
    run.start_epoch_ns = 1'000'000;
    b.on_start(run);
    b.on_thread_name(7, "trainer");
    ringprof::SpanBatch batch;
    auto span = [](const char* name, std::uint64_t begin, std::uint64_t end, std::uint32_t tid, std::uint32_t depth,
                   std::int64_t step) {
        ringprof::Span s;
        s.name = name;
        s.begin_ns = begin;
        s.end_ns = end;
        s.tid = tid;
        s.depth = depth;
        s.has_step = step >= 0;  // -1 here: a span in no step
        s.step = step;
        return s;
    };
    batch.spans = {span("a", 1'100'000, 1'900'000, 7, 0, 0), span("b", 1'200'000, 1'250'000, 7, 1, 0),
                   span("c", 2'000'000, 2'600'000, 8, 0, 1), span("d", 2'100'000, 2'130'000, 8, 1, 1),
                   span("e", 3'000'000, 4'000'000, 8, 0, -1)};
    b.on_spans(batch);
    ringprof::TimelineStatus status;
    status.filtered_spans = 42;
    b.on_timeline_flush(status);

    const ringprof::FlameTimeline tl = b.timeline();
    EXPECT_EQ(tl.spans_seen, 5u);
    ASSERT_EQ(tl.lanes.size(), 2u);
    EXPECT_EQ(tl.lanes[0].label, "trainer");
    EXPECT_EQ(tl.lanes[1].label, "thread 8");  // no name given: as the timelines call it
    std::multiset<std::string> kept;
    for (const ringprof::FlameLane& l : tl.lanes) {
        for (const ringprof::FlameSpan& s : l.spans) kept.insert(tl.names.at(s.name));
    }
    EXPECT_EQ(kept, (std::multiset<std::string>{"a", "c", "e"}));
    EXPECT_EQ(tl.lanes[0].spans.at(0).start_ns, 100'000);  // from the run's start
    EXPECT_EQ(tl.lanes[0].spans.at(0).dur_ns, 800'000);
    ASSERT_EQ(tl.steps.size(), 2u);  // from every span seen, kept or not
    EXPECT_EQ(tl.steps[0].step, 0);
    EXPECT_EQ(tl.steps[0].start_ns, 100'000);
    EXPECT_EQ(tl.steps[0].end_ns, 900'000);
    EXPECT_EQ(tl.steps[1].start_ns, 1'000'000);
    EXPECT_EQ(tl.steps[1].end_ns, 1'600'000);
    EXPECT_EQ(tl.duration_ns, 3'000'000);
    EXPECT_NE(tl.note.find("the 3 longest of the 5 spans"), std::string::npos) << tl.note;
    EXPECT_NE(tl.note.find("42 scopes left out of every timeline by RINGPROF_TIMELINE_MIN_NS=20000"), std::string::npos)
        << tl.note;
}

// A pool churning through short-lived threads: the first 64 keep a view each, the rest share one,
// so neither memory nor the page grows with the number of threads that ever ran.
TEST(FlameLive, ThreadsExitedBeyondTheFirst64ShareOneView) {
    const std::string dir = std::string(RINGPROF_TEST_BINARY_DIR) + "/live_threads_churn";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string result = dir + "/views.txt";
    const auto outcome = ringprof::testing::run_bounded(
        [&] {
            ringprof::Config c;
            c.output_dir = dir;
            c.run_id = "churn";
            c.backends = {"timers"};
            ringprof::Session session(c);
            for (int i = 0; i < 100; ++i) {
                std::thread([] {
                    PROF_SCOPE("short_job");
                    flame_test::spin_for(std::chrono::microseconds(20));
                }).join();
                session.snapshot();  // a drain pass retires the thread, as time passing would
            }
            const ringprof::FlameProfile p = ringprof::flame_profile(session.snapshot(), "churn");
            std::ofstream out(result);
            for (const ringprof::FlameThread& t : p.threads) {
                const ringprof::TimerNode* job = t.tree.find("short_job");
                out << t.label << '|' << t.detail << '|' << (job ? job->count : 0) << '\n';
            }
            return 0;
        },
        ringprof::testing::without_exit_handlers(std::chrono::seconds(60)));
    ASSERT_TRUE(outcome.finished) << "the churning run did not finish within its deadline";
    ASSERT_EQ(outcome.exit_code, 0);
    std::ifstream in(result);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 65u);
    for (std::size_t i = 0; i < 64; ++i) EXPECT_NE(lines[i].find(", exited|1"), std::string::npos) << lines[i];
    EXPECT_EQ(lines[64], "later exited threads (36)|exited|36");
}

}  // namespace
