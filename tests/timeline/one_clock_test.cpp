// One time base per session: a tick maps to one nanosecond whenever it is converted, so the
// timelines nest exactly (checked on the decimal text the files hold, not on rounded doubles),
// and the timers tree, the statistics and both timelines agree.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "drain/clock_calibration.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/stats.hpp"
#include "ringprof/timers_json.hpp"
#include "timeline_test_support.hpp"
#include "timeline/timeline_writer.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;
using detail::ClockCalibration;

std::uint64_t zero_clock() { return 0; }

TEST(ClockCalibration, ATickConvertsToTheSameNanosecondBeforeAndAfterARecalibration) {
    ClockCalibration clock(&zero_clock, 1e-9);  // 1 ns per tick until the first knot
    const std::vector<std::uint64_t> ticks = {0, 1, 999, 1000, 1001, 5000, 123456789};
    std::vector<std::int64_t> before;
    for (std::uint64_t t : ticks) before.push_back(clock.offset_ns(t));
    clock.add_segment(1000000000, 1.25);  // a knot beyond every tick converted so far
    clock.add_segment(2000000000, 0.5);
    for (std::size_t i = 0; i < ticks.size(); ++i) EXPECT_EQ(clock.offset_ns(ticks[i]), before[i]) << ticks[i];
    EXPECT_EQ(clock.ns_per_tick(), 0.5);
}

TEST(ClockCalibration, TheMappingIsContinuousAndNeverDecreasesAcrossKnots) {
    ClockCalibration clock(&zero_clock, 1e-9);
    clock.add_segment(1000, 3.0);   // faster after the knot
    clock.add_segment(2000, 0.25);  // slower after this one
    EXPECT_EQ(clock.offset_ns(1000), 1000);
    EXPECT_EQ(clock.offset_ns(1001), 1003);
    EXPECT_EQ(clock.offset_ns(2000), 1000 + 3000);
    EXPECT_EQ(clock.offset_ns(2004), 4001);
    std::int64_t last = clock.offset_ns(0);
    for (std::uint64_t t = 1; t < 3000; ++t) {
        const std::int64_t now = clock.offset_ns(t);
        ASSERT_GE(now, last) << "tick " << t;
        last = now;
    }
}

// The conversion rounds as std::llround did (halfway cases away from zero, ticks before the
// first pair negative), so no timestamp in any output moved when the call was replaced.
TEST(ClockCalibration, OffsetsRoundExactlyAsLlroundDoesHalvesAwayFromZero) {
    ClockCalibration clock(&zero_clock, 1e-9);
    const std::uint64_t knot = std::uint64_t{1} << 40;
    const std::int64_t knot_ns = clock.offset_ns(knot);
    clock.add_segment(knot, 0.5);  // every odd tick past the knot lands on a half
    for (std::uint64_t dt : {1ull, 3ull, 5ull, 1001ull, (1ull << 53) + 1, (1ull << 62) + 3}) {
        const auto expected = knot_ns + std::llround(static_cast<double>(dt) * 0.5);
        EXPECT_EQ(clock.offset_ns(knot + dt), expected) << "tick knot + " << dt;
    }
    // Ticks before the session's first pair: negative offsets, whose halves round down.
    ClockCalibration halves(&zero_clock, 0.5e-9);  // 0.5 ns a tick, exactly
    for (std::uint64_t back : {1ull, 3ull, 5ull, 7ull}) {
        EXPECT_EQ(halves.offset_ns(0 - back), std::llround(-0.5 * static_cast<double>(back))) << back << " ticks early";
    }
    EXPECT_EQ(halves.offset_ns(0 - 3ull), -2) << "-1.5 rounds away from zero";
    // Rates a calibration produces, at offsets from nanoseconds to years, against llround.
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    for (int r = 0; r < 50; ++r) {
        const double rate = 0.3 + static_cast<double>(next() >> 11) * 0x1p-53;  // 0.3 .. 1.3 ns a tick
        ClockCalibration c(&zero_clock, 1e-9);
        const std::uint64_t at = 1000;
        const std::int64_t base = c.offset_ns(at);
        c.add_segment(at, rate);
        for (int i = 0; i < 2000; ++i) {
            const std::uint64_t dt = next() >> (8 + i % 56);
            ASSERT_EQ(c.offset_ns(at + dt), base + std::llround(static_cast<double>(dt) * rate))
                << "rate " << rate << " dt " << dt;
        }
    }
}

TEST(ClockCalibration, AKnotAtOrBeforeTheLastOneIsRefused) {
    ClockCalibration clock(&zero_clock, 1e-9);
    clock.add_segment(1000, 2.0);
    const std::int64_t at = clock.offset_ns(1500);
    clock.add_segment(1000, 7.0);
    clock.add_segment(10, 7.0);
    EXPECT_EQ(clock.offset_ns(1500), at);
    EXPECT_EQ(clock.segments(), 2u);
}

// The measured failure: a child drained in one pass, its parent in a later pass after a
// recalibration. Converted with "the latest rate", the parent began after its own child.
TEST(ClockCalibration, SpansConvertedOnEitherSideOfARecalibrationStillNest) {
    static constexpr Site kParent{"parent", "", "", 0};
    static constexpr Site kChild{"child", "", "", 0};
    ClockCalibration clock(&zero_clock, 1e-9);
    detail::TimelineWriter writer(clock, detail::TimelineOptions{});
    Collected collected;
    CollectingBackend backend(collected);
    writer.add_backend(&backend);
    writer.start();
    const std::vector<detail::SpanThread> threads{{7, "t"}};
    detail::TimelineRecords raw{detail::TimelineRecord::thread(7, std::nullopt),
                                detail::TimelineRecord::span(&kChild, 1000, 2000, 1)};
    writer.on_pass(raw, threads);
    { const auto hold = writer.hold(); }  // the child is converted and delivered
    clock.add_segment(3000, 2.0);         // the rate doubles from a tick not yet converted
    raw = {detail::TimelineRecord::thread(7, std::nullopt), detail::TimelineRecord::span(&kParent, 999, 10000, 0)};
    writer.on_pass(raw, threads);
    writer.stop();
    ASSERT_EQ(collected.spans.size(), 2u);
    const Span& child = collected.spans[0];
    const Span& parent = collected.spans[1];
    EXPECT_LE(parent.begin_ns, child.begin_ns);
    EXPECT_LE(child.end_ns, parent.end_ns);
    EXPECT_EQ(parent.begin_ns - clock.start_epoch_ns(), 999u);
    EXPECT_EQ(parent.end_ns - clock.start_epoch_ns(), 3000u + 7000u * 2u);
}

// ------------------------------------------------------------ whole sessions, files parsed back

namespace od = simdjson::ondemand;

// A JSON number token ("12.345", "7", "-0.002") as an exact integer of 1/scale units.
std::int64_t exact(std::string_view token, std::int64_t scale, std::int64_t grid = 1) {
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == ','))
        token.remove_suffix(1);
    bool negative = !token.empty() && token.front() == '-';
    if (negative) token.remove_prefix(1);
    std::int64_t whole = 0, frac = 0, frac_scale = 1;
    bool in_frac = false;
    for (char c : token) {
        if (c == '.') {
            in_frac = true;
            continue;
        }
        EXPECT_TRUE(c >= '0' && c <= '9') << "not a plain decimal: " << token;
        if (in_frac) {
            frac = frac * 10 + (c - '0');
            frac_scale *= 10;
        } else {
            whole = whole * 10 + (c - '0');
        }
    }
    EXPECT_LE(frac_scale, scale) << "more decimals than the unit holds: " << token;
    // In units of 1/grid of the token's unit: the fraction must be a whole number of them.
    EXPECT_EQ(frac * grid % frac_scale, 0) << token << " is not on a grid of 1/" << grid;
    const std::int64_t v = whole * grid + frac * grid / frac_scale;
    (void)scale;
    return negative ? -v : v;
}

// A number token as JavaScript and Python read it: correctly rounded to a double.
double consumer_double(std::string_view token) { return std::strtod(std::string(token).c_str(), nullptr); }

struct Interval {
    std::string name;
    std::int64_t tid = 0;
    std::int64_t begin = 0, end = 0;  // exact, in the file's unit
    double begin_double = 0, end_double = 0;  // as consumers compute them: double(ts) + double(dur)
    std::int64_t step = -1;           // the step this span ran in (-1: none)
    bool is_step = false;
};

// The nanosecond a trace time of `units` 2^-10 us stands for (the writer floors ns * 1.024).
std::int64_t trace_ns(std::int64_t units) { return units >= 0 ? (units * 125 + 127) / 128 : -(-units * 125 / 128); }

// Every X event of a Chrome trace, times in integer nanoseconds from the decimal text.
std::vector<Interval> trace_intervals(const std::string& json) {
    std::vector<Interval> out;
    od::parser parser;
    simdjson::padded_string padded(json);
    od::document doc = parser.iterate(padded);
    for (auto item : doc["traceEvents"].get_array()) {
        od::object o = item.get_object();
        Interval iv;
        std::string_view ph;
        std::int64_t ts = 0, dur = 0;
        bool has_dur = false;
        for (auto field : o) {
            const std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "ph")
                ph = v.get_string();
            else if (key == "name")
                iv.name = std::string(std::string_view(v.get_string()));
            else if (key == "tid")
                iv.tid = v.get_int64();
            else if (key == "cat")
                iv.is_step = std::string_view(v.get_string()) == "step";
            else if (key == "ts") {
                const std::string_view token = v.raw_json_token();
                ts = exact(token, 10'000'000'000, 1024);
                iv.begin_double = consumer_double(token);
            } else if (key == "dur") {
                const std::string_view token = v.raw_json_token();
                dur = exact(token, 10'000'000'000, 1024);
                iv.end_double = consumer_double(token);
                has_dur = true;
            } else if (key == "args" && v.type() == od::json_type::object) {
                for (auto a : v.get_object()) {
                    const std::string_view k = a.unescaped_key();
                    od::value av = a.value();
                    if (k == "step")
                        iv.step = av.get_int64();
                    else if (k == "step_num")
                        iv.step = std::stoll(std::string(std::string_view(av.get_string())));
                }
            }
        }
        if (ph != "X") continue;
        EXPECT_TRUE(has_dur);
        iv.begin = trace_ns(ts);
        iv.end = trace_ns(ts + dur);
        iv.end_double += iv.begin_double;
        out.push_back(iv);
    }
    return out;
}

// Every X event of the pythontimeline files, times in integer microseconds.
std::vector<Interval> pythontimeline_intervals(const std::filesystem::path& root) {
    std::vector<Interval> out;
    od::parser parser;
    for (const auto& file : pevents_files(root)) {
        simdjson::padded_string padded = simdjson::padded_string::load(file.string()).value();
        od::document doc = parser.iterate(padded);
        for (auto item : doc.get_array()) {
            od::object o = item.get_object();
            Interval iv;
            std::string_view ph;
            for (auto field : o) {
                const std::string_view key = field.unescaped_key();
                od::value v = field.value();
                if (key == "ph")
                    ph = v.get_string();
                else if (key == "name")
                    iv.name = std::string(std::string_view(v.get_string()));
                else if (key == "tid")
                    iv.tid = v.get_int64();
                else if (key == "ts") {
                    const std::string_view token = v.raw_json_token();
                    iv.begin = exact(token, 1);
                    iv.begin_double = consumer_double(token);
                } else if (key == "dur") {
                    const std::string_view token = v.raw_json_token();
                    iv.end = exact(token, 1);
                    iv.end_double = consumer_double(token);
                }
                else if (key == "args" && v.type() == od::json_type::object) {
                    for (auto a : v.get_object()) {
                        const std::string_view k = a.unescaped_key();
                        od::value av = a.value();
                        if (k == "step_num") iv.step = std::stoll(std::string(std::string_view(av.get_string())));
                        if (k == "pid") iv.is_step = true;  // step events carry the OS pid
                    }
                }
            }
            if (ph != "X") continue;
            iv.end += iv.begin;
            iv.end_double += iv.begin_double;
            out.push_back(iv);
        }
    }
    return out;
}

// Per thread, any two intervals are nested or disjoint (touching ends allowed), exactly (integers
// from the decimal text) and as consumers compute it (double ts + double dur).
template <typename T>
void expect_laminar_by(const std::vector<Interval>& all, const char* what, T Interval::*begin, T Interval::*end) {
    std::map<std::int64_t, std::vector<const Interval*>> by_tid;
    for (const Interval& iv : all) by_tid[iv.tid].push_back(&iv);
    for (auto& [tid, list] : by_tid) {
        std::stable_sort(list.begin(), list.end(), [&](const Interval* a, const Interval* b) {
            if (a->*begin != b->*begin) return a->*begin < b->*begin;
            if (a->*end != b->*end) return a->*end > b->*end;
            return a->is_step && !b->is_step;  // a step encloses a scope of the same extent
        });
        std::vector<const Interval*> open;
        for (const Interval* iv : list) {
            ASSERT_LE(iv->*begin, iv->*end) << what << ": " << iv->name << " ends before it begins";
            while (!open.empty() && open.back()->*end <= iv->*begin) open.pop_back();
            if (!open.empty()) {
                ASSERT_LE(iv->*end, open.back()->*end)
                    << what << ": on tid " << tid << ", " << iv->name << " [" << iv->*begin << ", " << iv->*end
                    << "] crosses " << open.back()->name << " [" << open.back()->*begin << ", " << open.back()->*end
                    << "]";
            }
            open.push_back(iv);
        }
    }
}
void expect_laminar(const std::vector<Interval>& all, const char* what) {
    expect_laminar_by(all, what, &Interval::begin, &Interval::end);
    expect_laminar_by(all, (std::string(what) + " (as doubles)").c_str(), &Interval::begin_double,
                      &Interval::end_double);
}

// On the thread that ran the steps, each span labeled with a step lies within that step.
void expect_within_steps(const std::vector<Interval>& all, std::int64_t step_tid, const char* what) {
    std::map<std::int64_t, const Interval*> steps;
    for (const Interval& iv : all) {
        if (iv.is_step && iv.tid == step_tid) steps[iv.step] = &iv;
    }
    ASSERT_FALSE(steps.empty()) << what;
    for (const Interval& iv : all) {
        if (iv.is_step || iv.tid != step_tid || iv.step < 0) continue;
        auto it = steps.find(iv.step);
        ASSERT_NE(it, steps.end()) << what << ": " << iv.name << " in unknown step " << iv.step;
        EXPECT_LE(it->second->begin, iv.begin) << what << ": " << iv.name << " begins before step " << iv.step;
        EXPECT_LE(iv.end, it->second->end) << what << ": " << iv.name << " ends after step " << iv.step;
    }
}

void spin_ns(std::int64_t ns) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    while (std::chrono::steady_clock::now() < until) {
    }
}

// The program: a main thread doing steps with forward and backward, a loader thread
// doing short scopes, flushes in between so spans cross drainer passes and recalibrations.
void run_workload(const std::string& dir) {
    Config c = timeline_config(dir, {"trace", "pythontimeline", "timers", "stats"});
    c.flush_interval_ms = 1;
    Session session(c);
    std::atomic<bool> done{false};
    std::atomic<int> loads{0};
    std::thread loader([&] {
        while (!done.load()) {
            {
                PROF_SCOPE("load");
                {
                    PROF_SCOPE("decode");
                    spin_ns(2000);
                }
                PROF_SCOPE("augment");
                spin_ns(1000);
            }
            ++loads;
        }
    });
    // The steps take 20 ms; on a loaded machine the loader may not start running before they
    // end, and would then record nothing. The steps begin once it has loaded once.
    while (loads.load() == 0) std::this_thread::yield();
    for (int step = 0; step < 5; ++step) {
        PROF_STEP(step);
        {
            PROF_SCOPE("forward");
            spin_ns(1500000);
        }
        {
            PROF_SCOPE("backward");
            spin_ns(2500000);
        }
        if (step == 2) flush();
    }
    done = true;
    loader.join();
}

const TimerNode* find_anywhere(const TimerNode& n, const std::string& name) {
    if (n.name == name) return &n;
    for (const TimerNode& c : n.children) {
        if (const TimerNode* f = find_anywhere(c, name)) return f;
    }
    return nullptr;
}

struct Totals {
    std::uint64_t count = 0;
    std::int64_t ns = 0;
};

TEST(OneClock, SpansNestExactlyPerThreadAndEveryOutputAgrees) {
    const long runs = std::max(3L, scaled(20));
    double worst_relative = 0;  // timers.json total against the trace's sum, over all runs
    for (long run = 0; run < runs; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        TempDir dir;
        run_workload(dir.str());

        const std::vector<Interval> trace = trace_intervals(gunzip(read_text(dir.path() / "t_trace.json.gz")));
        const std::vector<Interval> py = pythontimeline_intervals(dir.path());
        ASSERT_FALSE(trace.empty());
        ASSERT_FALSE(py.empty());
        expect_laminar(trace, "trace.json.gz");
        // pythontimeline puts steps in their own "process": check scopes and steps apart.
        std::vector<Interval> py_scopes, py_steps;
        for (const Interval& iv : py) (iv.is_step ? py_steps : py_scopes).push_back(iv);
        expect_laminar(py_scopes, "pythontimeline scopes");
        expect_laminar(py_steps, "pythontimeline steps");
        std::int64_t main_tid = -1;
        for (const Interval& iv : trace) {
            if (iv.is_step) main_tid = iv.tid;
        }
        expect_within_steps(trace, main_tid, "trace.json.gz");
        expect_within_steps(py, main_tid, "pythontimeline");
        if (::testing::Test::HasFatalFailure()) return;

        // Agreement: the same spans in both timelines, and the aggregates' totals.
        std::map<std::string, Totals> from_trace, from_py;
        for (const Interval& iv : trace) {
            if (iv.is_step) continue;
            from_trace[iv.name].count++;
            from_trace[iv.name].ns += iv.end - iv.begin;
        }
        for (const Interval& iv : py_scopes) {
            from_py[iv.name].count++;
            from_py[iv.name].ns += (iv.end - iv.begin) * 1000;
        }
        const TimerTree timers = load_timers_json((dir.path() / "t_timers.json").string());
        const std::vector<FunctionStats> stats = load_stats_json((dir.path() / "t_stats.json").string());
        for (const char* name : {"forward", "backward", "load", "decode", "augment"}) {
            SCOPED_TRACE(name);
            const Totals& t = from_trace[name];
            ASSERT_GT(t.count, 0u);
            EXPECT_EQ(from_py[name].count, t.count);
            // pythontimeline floors each end to a microsecond: at most 1 us per span apart.
            EXPECT_NEAR(static_cast<double>(from_py[name].ns), static_cast<double>(t.ns), 1000.0 * t.count);
            const TimerNode* node = find_anywhere(timers.root, name);
            ASSERT_NE(node, nullptr);
            EXPECT_EQ(node->count, t.count);
            worst_relative = std::max(
                worst_relative, std::abs(node->total * 1e9 - static_cast<double>(t.ns)) / static_cast<double>(t.ns));
            // Aggregates sum ticks at the latest rate; the timeline's segments differ from it
            // by the calibration's error (measured: 3e-6 at worst), plus 1 ns rounding per span.
            EXPECT_NEAR(node->total * 1e9, static_cast<double>(t.ns), 1e-4 * static_cast<double>(t.ns) + 2.0 * t.count);
            const FunctionStats* row = nullptr;
            for (const FunctionStats& f : stats) {
                if (f.name == name) row = &f;
            }
            ASSERT_NE(row, nullptr);
            EXPECT_EQ(row->counts.ncalls, t.count);
            EXPECT_NEAR(row->counts.cumtime * 1e9, static_cast<double>(t.ns),
                        1e-4 * static_cast<double>(t.ns) + 2.0 * t.count);
        }
    }
    std::printf("timers.json against trace.json.gz: worst relative difference %.2e\n", worst_relative);
}

}  // namespace
}  // namespace ringprof
