// Numbers print as Python's json.dumps prints them, and compare as Python compares int and float.
#include <gtest/gtest.h>

#include "json/json_text.hpp"
#include "trace/trace_number.hpp"

using namespace ringprof::detail;

namespace {

std::string py(double v) {
    std::string s;
    ringprof::detail::append_python_float(s, v);
    return s;
}

TEST(MergeNumbers, FloatsLookLikePythonRepr) {
    EXPECT_EQ(py(9.9999999999999995e-07), "1e-06");
    EXPECT_EQ(py(0.0001), "0.0001");
    EXPECT_EQ(py(12.0), "12.0");
    EXPECT_EQ(py(-2.5), "-2.5");
    EXPECT_EQ(py(1e16), "1e+16");
    EXPECT_EQ(py(1234567890123456.0), "1234567890123456.0");
    EXPECT_EQ(py(1596659864566403.5), "1596659864566403.5");
    EXPECT_EQ(py(1.5e-10), "1.5e-10");
}

TEST(MergeNumbers, IntegersStayExactAndMixedComparisonsAreExact) {
    const TraceNumber big = TraceNumber::integer(9007199254740993);  // 2^53 + 1: no double holds it
    EXPECT_EQ(compare(big, TraceNumber::floating(9007199254740992.0)), 1);
    EXPECT_FALSE(add(big, TraceNumber::integer(1)).is_float);
    EXPECT_TRUE(add(big, TraceNumber::floating(0.5)).is_float);
    std::string s;
    append_number(s, add(big, TraceNumber::integer(1)));
    EXPECT_EQ(s, "9007199254740994");
    EXPECT_EQ(round_half_even(TraceNumber::floating(2.5)), 2);
    EXPECT_EQ(round_half_even(TraceNumber::floating(3.5)), 4);
}

}  // namespace
