// Timers JSON in both ML-Agents forms: written as Python writes it, read back from either.
#include <gtest/gtest.h>

#include <cmath>

#include "json/json_text.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof {
namespace {

std::string py(double v) {
    std::string s;
    detail::append_python_float(s, v);
    return s;
}

TEST(PythonFloat, MatchesPythonRepr) {
    EXPECT_EQ(py(100.0), "100.0");
    EXPECT_EQ(py(0.0), "0.0");
    EXPECT_EQ(py(1e-05), "1e-05");
    EXPECT_EQ(py(0.0001), "0.0001");
    EXPECT_EQ(py(4.384725093841553), "4.384725093841553");
    EXPECT_EQ(py(-3509.09033203125), "-3509.09033203125");
    EXPECT_EQ(py(1e16), "1e+16");
    EXPECT_EQ(py(1.5e16), "1.5e+16");
    EXPECT_EQ(py(123456789012345.0), "123456789012345.0");
    EXPECT_EQ(py(0.1), "0.1");
    EXPECT_EQ(py(2.5e-07), "2.5e-07");
}

TimerTree sample_tree() {
    TimerTree t;
    t.root.total = 6.75;
    t.root.count = 1;
    TimerNode& top = t.root.child("top_level");
    top.total = 4.25;
    top.count = 1;
    TimerNode& multiple = top.child("multiple");
    multiple.total = 3.0;
    multiple.count = 3;
    TimerNode& f = multiple.child("decorated_func");
    f.total = 1.5;
    f.count = 3;
    f.is_parallel = true;
    t.gauge("my_gauge").set(0.0, 1);
    t.gauge("my_gauge").set(4.0, 2);
    t.set_metadata("timer_format_version", "0.1.0");
    return t;
}

TEST(TimersJson, ListFormHasMlAgentsKeyOrderAndIndentation) {
    const std::string text = write_timers_json(sample_tree(), TimersFormat::List);
    const std::string expected_start =
        "{\n"
        "    \"name\": \"root\",\n"
        "    \"total\": 6.75,\n"
        "    \"count\": 1,\n"
        "    \"self\": 2.5,\n"
        "    \"children\": [\n"
        "        {\n"
        "            \"name\": \"top_level\",\n"
        "            \"total\": 4.25,\n";
    EXPECT_EQ(text.substr(0, expected_start.size()), expected_start);
    EXPECT_NE(text.find("\"is_parallel\": true,\n"), std::string::npos);
    EXPECT_NE(text.find("\"gauges\": [\n"), std::string::npos);
    EXPECT_LT(text.find("\"children\""), text.find("\"gauges\""));
}

TEST(TimersJson, DictFormPutsGaugesAndMetadataFirstAndOmitsChildNames) {
    const std::string text = write_timers_json(sample_tree(), TimersFormat::Dict);
    EXPECT_LT(text.find("\"gauges\""), text.find("\"total\""));
    EXPECT_LT(text.find("\"metadata\""), text.find("\"total\""));
    EXPECT_NE(text.find("\"top_level\": {\n"), std::string::npos);
    EXPECT_EQ(text.find("\"name\": \"top_level\""), std::string::npos);
}

void expect_same(const TimerNode& a, const TimerNode& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_DOUBLE_EQ(a.total, b.total);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.is_parallel, b.is_parallel);
    ASSERT_EQ(a.children.size(), b.children.size());
    for (std::size_t i = 0; i < a.children.size(); ++i) expect_same(a.children[i], b.children[i]);
}

TEST(TimersJson, BothFormsRoundTrip) {
    const TimerTree t = sample_tree();
    for (TimersFormat f : {TimersFormat::List, TimersFormat::Dict}) {
        const TimerTree back = parse_timers_json(write_timers_json(t, f), "mem");
        expect_same(back.root, t.root);
        ASSERT_EQ(back.gauges.size(), 1u);
        EXPECT_EQ(back.gauges[0].first, "my_gauge");
        EXPECT_EQ(back.gauges[0].second.value, 4.0);
        EXPECT_EQ(back.gauges[0].second.min, 0.0);
        EXPECT_EQ(back.gauges[0].second.count, 2u);
        ASSERT_NE(back.find_metadata("timer_format_version"), nullptr);
    }
}

TEST(TimersJson, ReadsANamelessRootAsOldMlAgentsFilesHaveIt) {
    const TimerTree t = parse_timers_json(R"({"total": 1.0, "count": 0, "self": 1.0,
        "children": [{"name": "a", "total": 0.5, "count": 2, "self": 0.5}]})");
    EXPECT_EQ(t.root.name, "root");
    EXPECT_EQ(t.root.find("a")->count, 2u);
}

TEST(TimersJson, TruncatedInputNamesSourceAndPosition) {
    const std::string text = write_timers_json(sample_tree(), TimersFormat::List);
    try {
        parse_timers_json(text.substr(0, text.size() / 2), "worker_3.json");
        FAIL() << "truncated input must not parse";
    } catch (const TimersJsonError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("worker_3.json"), std::string::npos) << what;
        EXPECT_NE(what.find("byte"), std::string::npos) << what;
    }
}

TEST(TimersJson, EmptyInputIsAnErrorNamingTheSource) {
    for (const char* text : {"", "  \n"}) {
        try {
            parse_timers_json(text, "empty.json");
            FAIL() << "empty input must not parse";
        } catch (const TimersJsonError& e) {
            EXPECT_NE(std::string(e.what()).find("empty.json: not a timers file: the input is empty"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(TimersJson, WrongTypesAreErrorsWithLineAndColumn) {
    try {
        parse_timers_json("{\n  \"name\": \"root\",\n  \"total\": \"<mock.ANY>\"\n}", "mock.json");
        FAIL() << "a string total must not parse";
    } catch (const TimersJsonError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("mock.json"), std::string::npos) << what;
        EXPECT_NE(what.find("line 3"), std::string::npos) << what;
    }
}

TEST(TimerTree, MergeGraftsUnderANamedNodeAndMarksItParallel) {
    TimerTree main_tree;
    TimerTree worker;
    worker.root.total = 2.0;
    worker.root.count = 1;
    worker.root.child("env_step").total = 1.5;
    worker.root.child("env_step").count = 10;
    main_tree.merge(worker, "workers/worker_root", true);
    main_tree.merge(worker, "workers/worker_root", true);
    const TimerNode* wr = main_tree.root.find_path("workers/worker_root");
    ASSERT_NE(wr, nullptr);
    EXPECT_TRUE(wr->is_parallel);
    EXPECT_EQ(wr->count, 2u);
    EXPECT_DOUBLE_EQ(wr->total, 4.0);
    EXPECT_EQ(wr->find("env_step")->count, 20u);
    EXPECT_TRUE(wr->find("env_step")->is_parallel);
    EXPECT_FALSE(main_tree.root.find("workers")->is_parallel);
}

TEST(Gauge, KeepsLatestValueWidensRangeAndIgnoresNaN) {
    Gauge g;
    g.set(3.0, 10);
    g.set(std::nan(""), 11);
    g.set(-1.0, 12);
    g.set(7.0, 5);  // older than the latest update: widens, does not replace
    EXPECT_EQ(g.value, -1.0);
    EXPECT_EQ(g.min, -1.0);
    EXPECT_EQ(g.max, 7.0);
    EXPECT_EQ(g.count, 3u);
}

}  // namespace
}  // namespace ringprof
