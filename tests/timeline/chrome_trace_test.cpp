// trace.json.gz read back: complete gzip + JSON, names, steps as instants, counters, drop counts,
// sub-microsecond times, nesting, and a stream cut short after a flush still yields its events.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <sstream>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

void tiny() { PROF_SCOPE("tiny"); }
void outer() {
    PROF_SCOPE("outer \"quoted\"");
    tiny();
    tiny();
}

TEST(ChromeTrace, WholeFileParsesWithNamesStepsCountersAndDrops) {
    TempDir dir;
    constexpr int kSteps = 3;
    constexpr int kCalls = 40;
    static constexpr Site gauge_site{"loss", "", "", 0};
    {
        Session session(timeline_config(dir.str(), {"trace"}));
        set_thread_name("main_loop");
        std::thread worker([] {
            set_thread_name("helper");
            for (int i = 0; i < kCalls; ++i) outer();
        });
        for (int s = 0; s < kSteps; ++s) {
            PROF_STEP(s);
            outer();
            detail::Event gauge[2] = {detail::Event{0, detail::make_tag(&gauge_site, detail::EventKind::Gauge)},
                                      detail::payload(detail::bits_of(0.5 * s))};
            detail::write_record(gauge, 2);
        }
        worker.join();
    }
    bool complete = false;
    const std::string json = gunzip(read_text(dir.path() / "t_trace.json.gz"), &complete);
    EXPECT_TRUE(complete);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
    std::string_view unit;
    EXPECT_EQ(doc["displayTimeUnit"].get(unit), simdjson::SUCCESS);
    EXPECT_EQ(unit, "ns");
    std::uint64_t dropped = 99;
    EXPECT_EQ(doc["otherData"]["timeline_dropped_spans"].get(dropped), simdjson::SUCCESS);
    EXPECT_EQ(dropped, 0u);
    simdjson::dom::array arr;
    ASSERT_EQ(doc["traceEvents"].get(arr), simdjson::SUCCESS);
    const std::vector<Ev> events = events_of(arr);
    expect_nested(events);

    std::map<std::string, int> x_counts;
    std::set<std::int64_t> span_tids, named_tids;
    std::set<std::string> thread_names;
    int instants = 0, counters = 0, fractional = 0;
    std::string process_name;
    for (const Ev& e : events) {
        EXPECT_EQ(e.pid, ::getpid());
        if (e.ph == "X") {
            ++x_counts[e.name];
            span_tids.insert(e.tid);
            if (e.ts != std::floor(e.ts) || e.dur != std::floor(e.dur)) ++fractional;
        } else if (e.ph == "M" && e.name == "thread_name") {
            named_tids.insert(e.tid);
            thread_names.insert(e.arg_name);
        } else if (e.ph == "M" && e.name == "process_name") {
            process_name = e.arg_name;
        } else if (e.ph == "i") {
            ++instants;
            EXPECT_EQ(e.name, "Step:ModeKeys.TRAIN");
            EXPECT_FALSE(e.step_num.empty());
        } else if (e.ph == "C" && e.name == "loss") {
            ++counters;
        }
    }
    EXPECT_EQ(process_name, "t");
    EXPECT_EQ(x_counts["outer \"quoted\""], kSteps + kCalls);
    EXPECT_EQ(x_counts["tiny"], 2 * (kSteps + kCalls));
    EXPECT_EQ(x_counts["Step:ModeKeys.TRAIN"], kSteps);
    EXPECT_EQ(instants, kSteps);
    EXPECT_EQ(counters, kSteps);
    EXPECT_GT(fractional, 0) << "ts/dur keep sub-microsecond digits";
    for (std::int64_t tid : span_tids) EXPECT_TRUE(named_tids.count(tid)) << "tid " << tid << " has no name";
    EXPECT_TRUE(thread_names.count("main_loop"));
    EXPECT_TRUE(thread_names.count("helper"));
    // Scopes inside a step on the stepping thread carry it.
    for (const Ev& e : events) {
        if (e.ph == "X" && e.name == "tiny" && e.step >= 0) {
            EXPECT_LT(e.step, kSteps);
        }
    }
}

// What docs/backends.md tells a user to do with the file of a killed process: keep the complete
// lines that end with "},".
std::vector<Ev> recover_lines(const std::string& text) {
    std::vector<Ev> out;
    std::istringstream in(text);
    std::string line;
    simdjson::dom::parser parser;
    while (std::getline(in, line)) {
        if (line.rfind("{\"ph\"", 0) != 0 || line.size() < 2 || line.compare(line.size() - 2, 2, "},") != 0) continue;
        line.pop_back();
        simdjson::dom::element e;
        EXPECT_EQ(parser.parse(line).get(e), simdjson::SUCCESS) << line;
        out.push_back(to_ev(e.get_object()));
    }
    return out;
}

TEST(ChromeTrace, StreamCutAfterAFlushKeepsEveryEarlierEvent) {
    TempDir dir;
    const int before = 200;
    Session session(timeline_config(dir.str(), {"trace"}));
    for (int i = 0; i < before; ++i) outer();
    flush();
    // The process "dies" here: the file as it is now, with its gzip stream never finished (still
    // under its temporary name: the trace takes its name only once whole).
    const std::string cut = read_text(dir.path() / ("t_trace.json.gz." + std::to_string(::getpid()) + ".tmp"));
    for (int i = 0; i < 50; ++i) outer();

    bool complete = true;
    const std::string text = gunzip(cut, &complete);
    EXPECT_FALSE(complete);
    const std::vector<Ev> events = recover_lines(text);
    int outers = 0;
    for (const Ev& e : events) outers += e.ph == "X" && e.name == "outer \"quoted\"";
    EXPECT_EQ(outers, before);
    expect_nested(events);
}

// A clock whose reading advances every third call, 100 ns a tick: children end in the tick their
// parent ends, and siblings end in the tick the next begins, every time. What load did to the
// tests above now and then (a child ending in the parent's nanosecond), made certain.
// Only the recording thread's reads advance it: the drainer reads the clock too, as often as it
// likes, and reads that advanced it would shift where the ticks fall (no boundary touched in 1
// run of 14 on a loaded machine).
std::atomic<std::uint64_t> g_coarse_calls{0};
thread_local bool t_coarse_advances = false;
std::uint64_t coarse_clock() {
    return 1'000'000 + (t_coarse_advances ? g_coarse_calls.fetch_add(1) : g_coarse_calls.load()) / 3;
}

TEST(ChromeTrace, TouchingBoundariesNestAsConsumersAddTsAndDur) {
    TempDir dir;
    Config c = timeline_config(dir.str(), {"trace", "pythontimeline"});
    c.custom_clock = &coarse_clock;
    c.custom_clock_seconds_per_tick = 1e-7;
    t_coarse_advances = true;
    {
        Session session(c);
        // Each outer() reads the clock six times, two ticks. Started at the last read of a tick,
        // a child ends in the tick its sibling begins and the last one in the tick its parent
        // ends; the phase is set here, so reads the session's start makes on this thread (or
        // no longer makes) do not decide it.
        g_coarse_calls.store((g_coarse_calls.load() / 3 + 1) * 3 + 2);
        for (int i = 0; i < 3000; ++i) outer();
    }
    t_coarse_advances = false;
    const std::string json = gunzip(read_text(dir.path() / "t_trace.json.gz"));
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
    simdjson::dom::array arr;
    ASSERT_EQ(doc["traceEvents"].get(arr), simdjson::SUCCESS);
    const std::vector<Ev> events = events_of(arr);
    int touching = 0;  // a child ending where its parent ends: the case that must still nest
    for (std::size_t i = 1; i < events.size(); ++i) {
        if (events[i].ph == "X" && events[i - 1].ph == "X" && events[i].name == "outer \"quoted\"" &&
            events[i - 1].ts + events[i - 1].dur == events[i].ts + events[i].dur) {
            ++touching;
        }
    }
    EXPECT_GT(touching, 100) << "the clock did not make boundaries touch";
    EXPECT_EQ(std::count_if(events.begin(), events.end(), [](const Ev& e) { return e.ph == "X"; }), 3 * 3000);
    expect_nested(events);

    std::vector<Ev> py;
    for (const auto& file : pevents_files(dir.path())) {
        simdjson::dom::array py_arr;
        ASSERT_EQ(parser.parse(read_text(file)).get(py_arr), simdjson::SUCCESS) << file;
        for (const Ev& e : events_of(py_arr)) py.push_back(e);
    }
    EXPECT_EQ(std::count_if(py.begin(), py.end(), [](const Ev& e) { return e.ph == "X"; }), 3 * 3000);
    expect_nested(py);
}

TEST(ChromeTrace, AGarbledTailStillYieldsTheFlushedPart) {
    TempDir dir;
    Session session(timeline_config(dir.str(), {"trace"}));
    for (int i = 0; i < 100; ++i) outer();
    flush();
    std::string cut = read_text(dir.path() / ("t_trace.json.gz." + std::to_string(::getpid()) + ".tmp"));
    const std::size_t flushed_size = cut.size();
    // Half a deflate block after the flush point, as a crash mid-write leaves it.
    cut += std::string("\x12\x34\x56", 3);
    const std::vector<Ev> events = recover_lines(gunzip(cut));
    int outers = 0;
    for (const Ev& e : events) outers += e.ph == "X" && e.name == "outer \"quoted\"";
    EXPECT_EQ(outers, 100);
    EXPECT_GT(flushed_size, 20u);
}

}  // namespace
}  // namespace ringprof
