// Every int64 is a step number: recorded with PROF_STEP, written into both timelines, read back by
// the trace reader and counted by `ringprof steps`, at the edges too (INT64_MIN, -2, -1, 2^53 + 1,
// INT64_MAX). "No step" is a flag of its own everywhere, never a number that a step could have.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gzip_text.hpp"
#include "ringprof/ringprof.hpp"
#include "steps_fixtures.hpp"
#include "trace/byte_source.hpp"
#include "trace/parsed_event.hpp"
#include "trace/trace_reader.hpp"

namespace {

using ringprof::testing::gunzip_file;
using steps_test::TempDir;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
const std::vector<std::int64_t> kEdges = {kMin,
                                          kMin + 1,
                                          -2,
                                          -1,
                                          0,
                                          (std::int64_t{1} << 53) - 1,
                                          std::int64_t{1} << 53,
                                          (std::int64_t{1} << 53) + 1,
                                          kMax - 1,
                                          kMax};

TEST(StepNumbers, EveryInt64ParsesBackFromItsTextAndNothingBeyond) {
    std::vector<std::int64_t> values = kEdges;
    std::mt19937_64 rng(53);
    for (int i = 0; i < 10000; ++i) values.push_back(static_cast<std::int64_t>(rng()));
    for (std::int64_t v : values) {
        std::int64_t out = 12345;
        ASSERT_TRUE(ringprof::detail::parse_step(std::to_string(v), out)) << v;
        EXPECT_EQ(out, v);
        ASSERT_TRUE(ringprof::detail::parse_step(" +" + std::to_string(v < 0 ? 0 : v) + " ", out));
    }
    std::int64_t out = 0;
    for (const char* beyond : {"9223372036854775808", "-9223372036854775809", "18446744073709551616",
                               "99999999999999999999", "", "-", "1x"}) {
        EXPECT_FALSE(ringprof::detail::parse_step(beyond, out)) << beyond;
    }
}

void spin_us(int us) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < until) {
    }
}

// One step per edge, each with one scope inside, written by both timeline backends.
void record_edge_steps(const std::string& dir) {
    ringprof::Config c;
    c.output_dir = dir;
    c.run_id = "t";
    c.backends = {"trace", "pythontimeline"};
    ringprof::Session session(c);
    for (std::int64_t v : kEdges) {
        PROF_STEP(v);
        PROF_SCOPE("work");
        spin_us(50);
    }
}

std::vector<std::filesystem::path> pevents(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / "framework" / "pevents")) {
        if (e.is_regular_file()) out.push_back(e.path());
    }
    return out;
}

struct Labels {
    std::multiset<std::int64_t> steps, work;  // the step events' numbers, the scopes' labels
};

class LabelSink final : public ringprof::detail::EventSink {
public:
    explicit LabelSink(Labels& out) : out_(out) {}
    void on_event(const ringprof::detail::ReadEvent& e) override {
        if (!e.has_step) return;
        (e.name == "work" ? out_.work : out_.steps).insert(e.step);
    }

private:
    Labels& out_;
};

TEST(StepNumbers, EveryInt64StepIsWrittenAndReadBackWithItsSpans) {
    TempDir dir;
    record_edge_steps(dir.str());
    const std::multiset<std::int64_t> expected(kEdges.begin(), kEdges.end());

    // pythontimeline, through the reader every command uses.
    Labels read;
    LabelSink sink(read);
    const auto files = pevents(dir.path());
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) {
        auto src = ringprof::detail::open_trace_file(f.string());
        ringprof::detail::ReaderSetup setup;
        setup.node_id = "n";
        const auto outcome = ringprof::detail::read_trace_events(*src, setup, sink);
        EXPECT_EQ(outcome.dropped, 0u) << f;
    }
    EXPECT_EQ(read.steps, expected) << "step events";
    EXPECT_EQ(read.work, expected) << "scopes inside the steps";

    // trace.json.gz: step spans carry args.step_num (a string), scopes args.step (an integer).
    const std::string json = gunzip_file(dir.path() / "t_trace.json.gz");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
    std::multiset<std::int64_t> trace_steps, trace_work;
    for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
        std::string_view ph, name, text;
        if (e["ph"].get(ph) != simdjson::SUCCESS || ph != "X" || e["name"].get(name) != simdjson::SUCCESS) continue;
        std::int64_t step = 0;
        if (e["args"]["step_num"].get(text) == simdjson::SUCCESS) {
            ASSERT_TRUE(ringprof::detail::parse_step(text, step)) << text;
            trace_steps.insert(step);
        } else if (e["args"]["step"].get(step) == simdjson::SUCCESS) {
            EXPECT_EQ(name, "work");
            trace_work.insert(step);
        }
    }
    EXPECT_EQ(trace_steps, expected);
    EXPECT_EQ(trace_work, expected);
}

TEST(StepNumbers, RingprofStepsCountsEveryInt64Step) {
#ifndef RINGPROF_TOOL
    GTEST_SKIP() << "needs the ringprof tool";
#endif
    TempDir dir;
    record_edge_steps(dir.str());
    const ringprof::testing::ToolRun r = steps_test::run_steps(dir.str() + " --by node --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    // Only step -1's two events (its step event and its scope) are in no step: smdebug's "none".
    EXPECT_NE(r.err.find(" 2 event(s) in no step"), std::string::npos) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    std::set<std::int64_t> steps;
    for (simdjson::dom::element s : doc["steps"].get_array()) steps.insert(std::int64_t(s["step"]));
    // -1 is smdebug's "no step" for the analyses (docs/steps.md): its scope counts by time.
    std::set<std::int64_t> expected(kEdges.begin(), kEdges.end());
    expected.erase(-1);
    EXPECT_EQ(steps, expected) << r.out;
}

}  // namespace
