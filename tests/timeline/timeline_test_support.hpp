// Reading timeline outputs back in tests: gzip (whole or cut short), JSON through simdjson, and
// the per-thread nesting check shared by both formats.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ringprof/timeline_backend.hpp"
#include "gzip_text.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {

// Inflates a gzip stream; a stream cut short yields what precedes the cut.
inline std::string gunzip(const std::string& data, bool* complete = nullptr) {
    Inflated inflated = inflate_gzip(data);
    if (complete != nullptr) *complete = inflated.ended;
    return std::move(inflated.text);
}

// One parsed event, flattened to what the checks need.
struct Ev {
    std::string ph, name;
    std::int64_t pid = 0, tid = -1;
    double ts = 0, dur = 0;
    std::string step_num;    // args.step_num, empty if absent
    std::int64_t step = -1;  // args.step (trace), -1 if absent
    std::string arg_name;    // args.name (M events)
    std::int64_t args_pid = -1;
};

inline double number(simdjson::dom::element e) {
    if (e.is_double()) return double(e);
    if (e.is_int64()) return static_cast<double>(std::int64_t(e));
    return static_cast<double>(std::uint64_t(e));
}

inline Ev to_ev(simdjson::dom::object o) {
    Ev ev;
    std::string_view sv;
    if (o["ph"].get(sv) == simdjson::SUCCESS) ev.ph = std::string(sv);
    if (o["name"].get(sv) == simdjson::SUCCESS) ev.name = std::string(sv);
    simdjson::dom::element e;
    if (o["pid"].get(e) == simdjson::SUCCESS) ev.pid = static_cast<std::int64_t>(number(e));
    if (o["tid"].get(e) == simdjson::SUCCESS) ev.tid = static_cast<std::int64_t>(number(e));
    if (o["ts"].get(e) == simdjson::SUCCESS) ev.ts = number(e);
    if (o["dur"].get(e) == simdjson::SUCCESS) ev.dur = number(e);
    simdjson::dom::object args;
    if (o["args"].get(args) == simdjson::SUCCESS) {
        if (args["step_num"].get(sv) == simdjson::SUCCESS) ev.step_num = std::string(sv);
        if (args["step"].get(e) == simdjson::SUCCESS) ev.step = static_cast<std::int64_t>(number(e));
        if (args["name"].get(sv) == simdjson::SUCCESS) ev.arg_name = std::string(sv);
        if (args["pid"].get(e) == simdjson::SUCCESS) ev.args_pid = static_cast<std::int64_t>(number(e));
    }
    return ev;
}

inline std::vector<Ev> events_of(simdjson::dom::array a) {
    std::vector<Ev> out;
    for (simdjson::dom::element e : a) out.push_back(to_ev(e.get_object()));
    return out;
}

// X events of each (pid, tid) must nest as consumers compute it: ts and dur parsed to doubles,
// the end their double sum (Chrome DevTools drops a span that "cannot nest"). A child starts no
// earlier and ends no later than its parent; a span that ends where the next begins is its
// sibling. Both formats write times whose doubles are their exact values (whole microseconds, or
// multiples of 2^-10 us in the trace), so the sum is exact and the check has no false alarms.
inline void expect_nested(const std::vector<Ev>& events) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const Ev*>> by_thread;
    for (const Ev& e : events) {
        if (e.ph != "X") continue;
        by_thread[{e.pid, e.tid}].push_back(&e);
        for (double v : {e.ts, e.dur}) {
            EXPECT_EQ(std::ldexp(v, 10), std::floor(std::ldexp(v, 10))) << e.name << ": " << v << " is rounded";
        }
    }
    for (auto& [key, list] : by_thread) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Ev* a, const Ev* b) { return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur; });
        std::vector<double> ends;
        for (const Ev* e : list) {
            while (!ends.empty() && ends.back() <= e->ts) ends.pop_back();
            if (!ends.empty()) {
                EXPECT_LE(e->ts + e->dur, ends.back()) << e->name << " overlaps its parent on tid " << key.second;
            }
            ends.push_back(e->ts + e->dur);
        }
    }
}

// Pevents files under `root`/framework/pevents, sorted by name.
inline std::vector<std::filesystem::path> pevents_files(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> out;
    const auto dir = root / "framework" / "pevents";
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file()) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// What CollectingBackend was given; outlives the session that owns the backend.
struct Collected {
    struct CounterSample {
        std::string name;
        double ns;
        double value;
    };
    std::mutex mutex;
    std::vector<Span> spans;
    std::map<std::uint32_t, std::string> names;
    std::vector<CounterSample> counters;
    TimelineStatus status;
    int flushes = 0;
};

class CollectingBackend : public TimelineBackend {
public:
    explicit CollectingBackend(Collected& out) : out_(out) {}
    const char* name() const override { return "collect"; }
    void on_spans(const SpanBatch& b) override {
        std::lock_guard<std::mutex> lock(out_.mutex);
        out_.spans.insert(out_.spans.end(), b.spans.begin(), b.spans.end());
    }
    void on_thread_name(std::uint32_t tid, const std::string& n) override {
        std::lock_guard<std::mutex> lock(out_.mutex);
        out_.names[tid] = n;
    }
    void on_counter(const char* n, std::uint64_t ns, std::uint32_t, double v) override {
        std::lock_guard<std::mutex> lock(out_.mutex);
        out_.counters.push_back({n, static_cast<double>(ns), v});
    }
    void on_timeline_flush(const TimelineStatus& s) override {
        std::lock_guard<std::mutex> lock(out_.mutex);
        out_.status = s;
        ++out_.flushes;
    }

private:
    Collected& out_;
};

inline Config timeline_config(const std::string& dir, std::vector<std::string> backends) {
    Config c;
    c.output_dir = dir;
    c.run_id = "t";
    c.backends = std::move(backends);
    return c;
}

}  // namespace ringprof::testing
