// What the timers reader accepts and refuses: the shape of an ML-Agents tree, not just any JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ringprof/timers_json.hpp"

namespace ringprof {
namespace {

std::string error_of(const std::string& text) {
    try {
        parse_timers_json(text, "t.json");
    } catch (const TimersJsonError& e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(TimersReaderShape, AGaugeWrittenFromNonFiniteValuesReadsBackAsNoValue) {
    // Writers put NaN/inf gauge values as null and may add a count of them.
    const TimerTree t = parse_timers_json(
        R"({"name": "root", "total": 1.0, "count": 1, "future_field": {"x": [1]},
            "gauges": {"loss": {"value": null, "min": null, "max": 2.5, "count": 3, "non_finite_count": 2}}})");
    ASSERT_EQ(t.gauges.size(), 1u);
    EXPECT_TRUE(std::isnan(t.gauges[0].second.value));
    EXPECT_TRUE(std::isnan(t.gauges[0].second.min));
    EXPECT_EQ(t.gauges[0].second.max, 2.5);
    EXPECT_EQ(t.gauges[0].second.count, 3u);
}

TEST(TimersReaderShape, WrongKindsOfFilesAreRefusedNamingTheByte) {
    EXPECT_EQ(error_of("{}"),
              "t.json: not a timers file: the top level has no numeric \"total\"; expected a timer "
              "tree node at byte 0 (line 1, column 1)");
    EXPECT_EQ(error_of(R"({"traceEvents": []})"),
              "t.json: not a timers file: this is a Chrome trace (\"traceEvents\"); expected a timer tree at byte 16 "
              "(line 1, column 17)");
    EXPECT_EQ(error_of(R"({"format": "ringprof-stats", "functions": []})"),
              "t.json: not a timers file: this looks like a ringprof stats file (\"format\"); expected a timer tree at "
              "byte 11 (line 1, column 12)");
    EXPECT_EQ(error_of("[]"),
              "t.json: not a timers file: the top level is not an object; expected a timer tree at "
              "byte 0 (line 1, column 1)");
}

TEST(TimersReaderShape, CountsAreWholeAndNonNegativeTimesFiniteAndNonNegative) {
    const std::string head = R"({"name": "root", "total": 1.0, "count": 1, "children": [{"name": "a", )";
    EXPECT_NE(error_of(head + R"("total": 1, "count": -1}]})").find("\"count\" is not a whole count >= 0 at byte 91"),
              std::string::npos);
    EXPECT_NE(error_of(head + R"("total": 1, "count": 1.5}]})").find("\"count\" is not a whole count >= 0"),
              std::string::npos);
    EXPECT_NE(error_of(head + R"("total": 1e999, "count": 1}]})").find("\"total\" is out of range at byte 79"),
              std::string::npos);
    EXPECT_NE(error_of(head + R"("total": -1, "count": 1}]})").find("\"total\" is a negative time"), std::string::npos);
    EXPECT_EQ(parse_timers_json(head + R"("total": 1, "count": 9007199254740992}]})").root.children[0].count,
              9007199254740992u);
}

std::string nested(int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i) s += R"({"name": "n", "total": 1, "count": 1, "children": [)";
    s += R"({"name": "leaf", "total": 1, "count": 1})";
    for (int i = 0; i < levels; ++i) s += "]}";
    return s;
}

TEST(TimersReaderShape, NestingIsBoundedAt256Levels) {
    const TimerTree ok = parse_timers_json(nested(256));
    const TimerNode* n = &ok.root;
    int depth = 0;
    while (!n->children.empty()) {
        n = &n->children[0];
        ++depth;
    }
    EXPECT_EQ(depth, 256);
    EXPECT_NE(error_of(nested(257)).find("the tree is nested deeper than 256 levels"), std::string::npos);
    EXPECT_NE(error_of(nested(100000)).find("the tree is nested deeper than 256 levels"), std::string::npos);
}

}  // namespace
}  // namespace ringprof
