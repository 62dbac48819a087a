// Every number of the statistics table against a reference computed in the test from the call
// tree that was played (cProfile's rules written out plainly): a call is primitive when its
// function is not already on the stack; tottime sums each call's own time; cumtime sums the
// whole time of primitive calls only; percall divides them by calls and primitive calls; the
// header counts every call and adds up tottime. The tree mixes self, mutual and nested recursion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace {

using ringprof::testing::advance_ms;

// One call: the function (0: fa, 1: fb, 2: fc), its own milliseconds, the calls it makes.
struct Call {
    int function;
    std::uint64_t self_ms;
    std::vector<Call> calls;
};

void play(const Call& c);
void fa(const Call& c) {
    PROF_FUNCTION();
    advance_ms(c.self_ms);
    for (const Call& k : c.calls) play(k);
}
void fb(const Call& c) {
    PROF_FUNCTION();
    advance_ms(c.self_ms);
    for (const Call& k : c.calls) play(k);
}
void fc(const Call& c) {
    PROF_FUNCTION();
    advance_ms(c.self_ms);
    for (const Call& k : c.calls) play(k);
}
void play(const Call& c) { c.function == 0 ? fa(c) : c.function == 1 ? fb(c) : fc(c); }

const char* const kNames[] = {"fa", "fb", "fc"};

struct Expected {
    std::uint64_t ncalls = 0, primitive = 0;
    double tottime = 0, cumtime = 0;  // seconds
};

double total_ms(const Call& c) {
    double t = static_cast<double>(c.self_ms);
    for (const Call& k : c.calls) t += total_ms(k);
    return t;
}

void reference(const Call& c, std::vector<int>& stack, std::map<std::string, Expected>& out) {
    Expected& e = out[kNames[c.function]];
    const bool primitive = std::find(stack.begin(), stack.end(), c.function) == stack.end();
    ++e.ncalls;
    e.tottime += static_cast<double>(c.self_ms) / 1000.0;
    if (primitive) {
        ++e.primitive;
        e.cumtime += total_ms(c) / 1000.0;
    }
    stack.push_back(c.function);
    for (const Call& k : c.calls) reference(k, stack, out);
    stack.pop_back();
}

struct Printed {
    std::string ncalls;
    double tottime, tot_percall, cumtime, cum_percall;
};

TEST(StatsReference, EveryNumberOfTheTableMatchesCProfilesRulesAppliedToThePlayedTree) {
    // fa -> fb -> fa -> fc, fa -> fb -> fc, fa -> fc -> fc, fa -> fb -> fb, then fc and fb alone.
    const std::vector<Call> played = {
        {0, 1, {{1, 2, {{0, 3, {{2, 4, {}}}}, {2, 5, {}}}}, {2, 6, {{2, 7, {}}}}, {1, 8, {{1, 9, {}}}}}},
        {2, 10, {}},
        {1, 11, {{0, 12, {}}}},
    };
    std::map<std::string, Expected> expected;
    std::vector<int> stack;
    for (const Call& c : played) reference(c, stack, expected);

    ringprof::testing::TempDir dir;
    ringprof::Profile profile(ringprof::testing::fake_clock_options(dir));
    profile.enable();
    for (const Call& c : played) play(c);
    profile.disable();
    std::ostringstream out;
    profile.print_stats(out);
    const std::string table = out.str();

    // Rows: "ncalls tottime percall cumtime percall file:line(function)".
    std::map<std::string, Printed> rows;
    std::istringstream in(table);
    std::string header;
    std::getline(in, header);
    for (std::string line; std::getline(in, line);) {
        const std::size_t at = line.find("stats_reference_test.cpp:");
        if (at == std::string::npos) continue;
        const std::size_t open = line.find('(', at);
        Printed p;
        std::istringstream fields(line.substr(0, at));
        fields >> p.ncalls >> p.tottime >> p.tot_percall >> p.cumtime >> p.cum_percall;
        rows[line.substr(open + 1, line.size() - open - 2)] = p;
    }
    ASSERT_EQ(rows.size(), expected.size()) << table;
    const double half_unit = 0.0005 + 1e-9;  // three decimals
    std::uint64_t calls = 0, primitive = 0;
    double tottime = 0;
    for (const auto& [name, e] : expected) {
        SCOPED_TRACE(name);
        ASSERT_EQ(rows.count(name), 1u) << table;
        const Printed& p = rows[name];
        EXPECT_EQ(p.ncalls, e.ncalls == e.primitive ? std::to_string(e.ncalls)
                                                    : std::to_string(e.ncalls) + "/" + std::to_string(e.primitive));
        EXPECT_NEAR(p.tottime, e.tottime, half_unit);
        EXPECT_NEAR(p.tot_percall, e.tottime / static_cast<double>(e.ncalls), half_unit);
        EXPECT_NEAR(p.cumtime, e.cumtime, half_unit);
        EXPECT_NEAR(p.cum_percall, e.cumtime / static_cast<double>(e.primitive), half_unit);
        calls += e.ncalls;
        primitive += e.primitive;
        tottime += e.tottime;
    }
    std::ostringstream head;
    head << "         " << calls << " function calls";  // pstats: print(' ' * 8, calls, ...)
    if (primitive != calls) head << " (" << primitive << " primitive calls)";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " in %.3f seconds", tottime);
    head << seconds;
    EXPECT_EQ(header, head.str());
}

}  // namespace
