// The walker that names the byte of a syntax error simdjson refused without a position.
#include <gtest/gtest.h>

#include <string>

#include "json/json_error_position.hpp"

namespace {

using ringprof::detail::describe_offset;
using ringprof::detail::find_json_syntax_problem;

std::size_t offset_of(const std::string& text) {
    const auto p = find_json_syntax_problem(text);
    EXPECT_TRUE(p.found) << text;
    return p.offset;
}

TEST(JsonErrorPosition, ValidJsonHasNoProblem) {
    for (const char* ok : {"{}", "[]", " {\"a\": [1, -2.5e3, true, false, null, \"\\u00e9\\n\"]} ", "\"x\"", "0",
                           "\xEF\xBB\xBF[1]", "[\"\xC3\xA9\xF0\x9F\x98\x80\"]"}) {
        EXPECT_FALSE(find_json_syntax_problem(ok).found) << ok;
    }
}

TEST(JsonErrorPosition, NamesTheFirstOffendingByte) {
    EXPECT_EQ(offset_of("{\"a\": 1,}"), 8u);             // a member name was due
    EXPECT_EQ(offset_of("[1 2]"), 3u);                   // ',' or ']' was due
    EXPECT_EQ(offset_of("{\"a\" 1}"), 5u);               // ':' was due
    EXPECT_EQ(offset_of("[tru]"), 1u);                   // the misspelt literal, from its start
    EXPECT_EQ(offset_of("[01]"), 2u);                    // a leading zero ends the number
    EXPECT_EQ(offset_of("[\"a\\x\"]"), 4u);              // the unknown escape letter
    EXPECT_EQ(offset_of("[\"a\tb\"]"), 3u);              // a raw tab inside a string
    EXPECT_EQ(offset_of("[\"a\xFF\"]"), 3u);             // invalid UTF-8
    EXPECT_EQ(offset_of("[\"\xED\xA0\x80\"]"), 2u);      // an encoded surrogate
    EXPECT_EQ(offset_of("{} x"), 3u);                    // extra data after the value
    EXPECT_EQ(offset_of(std::string("[1,\0]", 5)), 3u);  // a NUL byte
}

TEST(JsonErrorPosition, TruncationIsTheEndOfTheInput) {
    for (const char* cut : {"", "{", "[1,", "{\"a\"", "{\"a\":", "[\"abc", "[-", "[1.", "[tr", "[\"\\u00"}) {
        const auto p = find_json_syntax_problem(cut);
        EXPECT_TRUE(p.found) << cut;
        EXPECT_EQ(p.offset, std::string(cut).size()) << cut;
    }
}

TEST(JsonErrorPosition, DeepNestingIsWalkedWithoutRecursion) {
    const std::size_t n = 1000000;
    std::string deep(n, '[');
    EXPECT_EQ(offset_of(deep), n) << "unclosed: the end of the input";
    deep.append(n, ']');
    EXPECT_FALSE(find_json_syntax_problem(deep).found);
}

TEST(JsonErrorPosition, DescribesOffsetsWithLineAndColumn) {
    EXPECT_EQ(describe_offset("{\n  x", 4), "at byte 4 (line 2, column 3)");
    EXPECT_EQ(describe_offset("{\n", 2), "at the end of the input, byte 2 (line 2, column 1)");
}

}  // namespace
