// Golden tests of the table for the fixed scenario (scenario.cpp) on the fake clock: recorded
// through the real markers, drained and aggregated by a real session.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/profile.hpp"
#include "scenario.hpp"

namespace {

using ringprof::Profile;
using ringprof::StatsSort;

std::string with_lines(std::string text) {
    const std::pair<const char*, int> lines[] = {{"{leaf}", stats_scenario::kLeafLine},
                                                 {"{dot}", stats_scenario::kDotLine},
                                                 {"{recurse}", stats_scenario::kRecurseLine},
                                                 {"{top}", stats_scenario::kTopLine}};
    for (const auto& [mark, line] : lines) {
        for (std::size_t at; (at = text.find(mark)) != std::string::npos;)
            text.replace(at, std::string(mark).size(), std::to_string(line));
    }
    return text;
}

const char kDot16[] = "dot(a:vector<float>(shape=(16,)), b:vector<float>(shape=(16,)))";
const char kDot8[] = "dot(a:vector<float>(shape=(8,)), b:vector<float>(shape=(8,)))";

class StatsTable : public ::testing::Test {
protected:
    void SetUp() override {
        profile_ = std::make_unique<Profile>(ringprof::testing::fake_clock_options(dir_));
        profile_->enable();
        stats_scenario::top();
        profile_->disable();
    }
    std::string table(StatsSort sort) {
        std::ostringstream out;
        profile_->print_stats(out, sort);
        return out.str();
    }
    // The labels of the table's rows, top to bottom.
    std::vector<std::string> order(StatsSort sort) {
        std::istringstream in(table(sort));
        std::vector<std::string> labels;
        for (std::string line; std::getline(in, line);) {
            const std::size_t open = line.find(".cpp:");
            if (open == std::string::npos) continue;
            const std::size_t paren = line.find('(', open);
            labels.push_back(line.substr(paren + 1, line.size() - paren - 2));
        }
        return labels;
    }

    ringprof::testing::TempDir dir_;
    std::unique_ptr<Profile> profile_;
};

TEST_F(StatsTable, StandardNameGolden) {
    const std::string expected = with_lines(
        "         8 function calls (7 primitive calls) in 0.049 seconds\n"
        "\n"
        "   Ordered by: standard name\n"
        "\n"
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
        "        2    0.002    0.001    0.002    0.001 scenario.cpp:{leaf}(leaf)\n"
        "        2    0.032    0.016    0.032    0.016 scenario.cpp:{dot}(dot(a:vector<float>(shape=(16,)), "
        "b:vector<float>(shape=(16,))))\n"
        "        1    0.008    0.008    0.008    0.008 scenario.cpp:{dot}(dot(a:vector<float>(shape=(8,)), "
        "b:vector<float>(shape=(8,))))\n"
        "      2/1    0.004    0.002    0.006    0.006 scenario.cpp:{recurse}(recurse)\n"
        "        1    0.003    0.003    0.049    0.049 scenario.cpp:{top}(top)\n"
        "\n"
        "\n");
    EXPECT_EQ(table(StatsSort::Stdname), expected);
}

TEST_F(StatsTable, CumulativeGolden) {
    const std::string expected = with_lines(
        "         8 function calls (7 primitive calls) in 0.049 seconds\n"
        "\n"
        "   Ordered by: cumulative time\n"
        "\n"
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
        "        1    0.003    0.003    0.049    0.049 scenario.cpp:{top}(top)\n"
        "        2    0.032    0.016    0.032    0.016 scenario.cpp:{dot}(dot(a:vector<float>(shape=(16,)), "
        "b:vector<float>(shape=(16,))))\n"
        "        1    0.008    0.008    0.008    0.008 scenario.cpp:{dot}(dot(a:vector<float>(shape=(8,)), "
        "b:vector<float>(shape=(8,))))\n"
        "      2/1    0.004    0.002    0.006    0.006 scenario.cpp:{recurse}(recurse)\n"
        "        2    0.002    0.001    0.002    0.001 scenario.cpp:{leaf}(leaf)\n"
        "\n"
        "\n");
    EXPECT_EQ(table(StatsSort::Cumulative), expected);
}

TEST_F(StatsTable, EverySortKeyOrdersRowsAsPstats) {
    using V = std::vector<std::string>;
    // Ties keep standard-name order.
    EXPECT_EQ(order(StatsSort::Calls), (V{"leaf", kDot16, "recurse", kDot8, "top"}));
    EXPECT_EQ(order(StatsSort::Cumulative), (V{"top", kDot16, kDot8, "recurse", "leaf"}));
    EXPECT_EQ(order(StatsSort::Tottime), (V{kDot16, kDot8, "recurse", "top", "leaf"}));
    EXPECT_EQ(order(StatsSort::Name), (V{kDot16, kDot8, "leaf", "recurse", "top"}));
    EXPECT_EQ(order(StatsSort::Filename), (V{"leaf", kDot16, kDot8, "recurse", "top"}));
    EXPECT_EQ(order(StatsSort::Line), (V{"leaf", kDot16, kDot8, "recurse", "top"}));
    EXPECT_EQ(order(StatsSort::Stdname), (V{"leaf", kDot16, kDot8, "recurse", "top"}));
}

TEST_F(StatsTable, OrderedByNamesEverySortKey) {
    const std::pair<const char*, const char*> keys[] = {
        {"calls", "call count"},      {"cumulative", "cumulative time"},
        {"tottime", "internal time"}, {"name", "function name"},
        {"filename", "file name"},    {"line", "line number"},
        {"stdname", "standard name"}, {"pcalls", "primitive call count"},
        {"nfl", "name/file/line"},    {"module", "file name"},
        {"-1", "standard name"},      {"2", "cumulative time"}};
    for (const auto& [key, description] : keys) {
        std::ostringstream out;
        profile_->print_stats(out, key);
        EXPECT_NE(out.str().find(std::string("   Ordered by: ") + description + "\n"), std::string::npos) << key;
    }
    std::ostringstream out;
    EXPECT_THROW(profile_->print_stats(out, "bogus"), std::invalid_argument);
}

TEST_F(StatsTable, SeveralSignaturesOfOneFunctionAreSeparateRows) {
    int dot_rows = 0;
    for (const ringprof::FunctionStats& f : profile_->stats()) {
        if (f.name != "dot") continue;
        ++dot_rows;
        EXPECT_EQ(f.line, static_cast<std::uint32_t>(stats_scenario::kDotLine));
        EXPECT_EQ(f.counts.ncalls, f.signature.find("(16,)") != std::string::npos ? 2u : 1u) << f.signature;
    }
    EXPECT_EQ(dot_rows, 2);
}

TEST(StatsTableFormat, LimitAndEmptyTableFollowPstats) {
    std::vector<ringprof::FunctionStats> rows(3);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i].file = "/src/a.cpp";
        rows[i].line = static_cast<std::uint32_t>(10 + i);
        rows[i].name = "f" + std::to_string(i);
        rows[i].counts = {i + 1, i + 1, 0.5 * static_cast<double>(i), 1.0};
    }
    ringprof::StatsTableOptions o;
    o.sort = StatsSort::Calls;
    o.limit = 2;
    o.source = "saved.json";
    EXPECT_EQ(ringprof::stats_table(rows, o),
              "saved.json\n"
              "\n"
              "         6 function calls in 1.500 seconds\n"
              "\n"
              "   Ordered by: call count\n"
              "   List reduced from 3 to 2 due to restriction <2>\n"
              "\n"
              "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
              "        3    1.000    0.333    1.000    0.333 a.cpp:12(f2)\n"
              "        2    0.500    0.250    1.000    0.500 a.cpp:11(f1)\n"
              "\n"
              "\n");
    EXPECT_EQ(ringprof::stats_table({}), "         0 function calls in 0.000 seconds\n\n");
}

TEST(StatsTableFormat, FileAndLineSortsDifferFromStandardName) {
    // stdname compares text, so line 9 sorts after line 10; "line" compares numbers.
    std::vector<ringprof::FunctionStats> rows(3);
    rows[0].file = "b.cpp", rows[0].line = 9, rows[0].name = "x";
    rows[1].file = "b.cpp", rows[1].line = 10, rows[1].name = "y";
    rows[2].file = "a.cpp", rows[2].line = 50, rows[2].name = "z";
    for (auto& r : rows) r.counts.ncalls = r.counts.primitive_calls = 1;
    auto names = [&](StatsSort s) {
        ringprof::StatsTableOptions o;
        o.sort = s;
        const std::string t = ringprof::stats_table(rows, o);
        std::vector<std::pair<std::size_t, char>> at;
        for (const char n : {'x', 'y', 'z'}) at.emplace_back(t.find(std::string("(") + n + ")"), n);
        std::sort(at.begin(), at.end());
        std::string order;
        for (const auto& p : at) order += p.second;
        return order;
    };
    EXPECT_EQ(names(StatsSort::Stdname), "zyx");
    EXPECT_EQ(names(StatsSort::Line), "xyz");
    EXPECT_EQ(names(StatsSort::Filename), "zyx");
    EXPECT_EQ(names(StatsSort::Name), "xyz");
}

TEST(StatsSortKeys, EverySpellingPstatsAcceptsAndNoOther) {
    // pstats' sort_stats takes each key, its aliases, the prefixes its get_sort_arg_defs keeps
    // ("cu", but neither "cum" nor "c": prefixes of two keys), and the old integers.
    const std::pair<const char*, StatsSort> accepted[] = {{"calls", StatsSort::Calls},
                                                          {"ncalls", StatsSort::Calls},
                                                          {"ca", StatsSort::Calls},
                                                          {"nc", StatsSort::Calls},
                                                          {"0", StatsSort::Calls},
                                                          {"cumulative", StatsSort::Cumulative},
                                                          {"cumtime", StatsSort::Cumulative},
                                                          {"cu", StatsSort::Cumulative},
                                                          {"cumu", StatsSort::Cumulative},
                                                          {"cumt", StatsSort::Cumulative},
                                                          {"2", StatsSort::Cumulative},
                                                          {"tottime", StatsSort::Tottime},
                                                          {"time", StatsSort::Tottime},
                                                          {"ti", StatsSort::Tottime},
                                                          {"to", StatsSort::Tottime},
                                                          {"1", StatsSort::Tottime},
                                                          {"name", StatsSort::Name},
                                                          {"na", StatsSort::Name},
                                                          {"filename", StatsSort::Filename},
                                                          {"file", StatsSort::Filename},
                                                          {"f", StatsSort::Filename},
                                                          {"module", StatsSort::Filename},
                                                          {"m", StatsSort::Filename},
                                                          {"line", StatsSort::Line},
                                                          {"l", StatsSort::Line},
                                                          {"stdname", StatsSort::Stdname},
                                                          {"s", StatsSort::Stdname},
                                                          {"-1", StatsSort::Stdname},
                                                          {"pcalls", StatsSort::Pcalls},
                                                          {"p", StatsSort::Pcalls},
                                                          {"nfl", StatsSort::Nfl},
                                                          {"nf", StatsSort::Nfl}};
    for (const auto& [key, sort] : accepted) {
        const auto parsed = ringprof::parse_stats_sort(key);
        ASSERT_TRUE(parsed.has_value()) << key;
        EXPECT_EQ(*parsed, sort) << key;
    }
    for (const char* refused : {"c", "cum", "t", "n", "", "3", "-2", "bogus", "callsx"}) {
        EXPECT_FALSE(ringprof::parse_stats_sort(refused).has_value()) << refused;
    }
}

TEST(StatsTableFormat, CFunctionsPrintInBracesAsPstatsPrintsThem) {
    // cProfile stores C functions as ("~", 0, "<built-in method builtins.len>") and pstats
    // prints them as {built-in method builtins.len}; a "~" name without angle brackets as is.
    std::vector<ringprof::FunctionStats> rows(3);
    rows[0].file = "~", rows[0].name = "<built-in method builtins.len>";
    rows[1].file = "~", rows[1].name = "<method 'append' of 'list' objects>";
    rows[2].file = "~", rows[2].name = "plain";
    for (auto& r : rows) r.counts.ncalls = r.counts.primitive_calls = 1;
    const std::string t = ringprof::stats_table(rows);
    EXPECT_NE(t.find(" plain\n"), std::string::npos) << t;
    const auto len = t.find(" {built-in method builtins.len}\n");
    const auto append = t.find(" {method 'append' of 'list' objects}\n");
    ASSERT_NE(len, std::string::npos) << t;
    ASSERT_NE(append, std::string::npos) << t;
    EXPECT_LT(len, append) << "standard name: the printed names' order";
    EXPECT_EQ(t.find("~:0"), std::string::npos) << t;
}

}  // namespace
