// The merge writes names with every non-ASCII character escaped (NonAscii::escape), as smdebug's
// json.dumps does: each code point must come back whole when the output is parsed, above the
// Basic Multilingual Plane (a surrogate pair) as below it. Decoded by simdjson, not by our code.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "json/json_text.hpp"

namespace {

using ringprof::detail::append_json_string;
using ringprof::detail::NonAscii;

std::string utf8_of(unsigned cp) {
    std::string s;
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else if (cp < 0x800) {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += static_cast<char>(0xE0 | (cp >> 12));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        s += static_cast<char>(0xF0 | (cp >> 18));
        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

TEST(JsonEscape, EveryCodePointEscapesToPlainAsciiThatParsesBackToIt) {
    simdjson::dom::parser parser;
    std::size_t checked = 0;
    const auto check = [&](unsigned cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) return;  // surrogates are not characters
        const std::string name = "a" + utf8_of(cp) + "b";
        std::string out;
        append_json_string(out, name, NonAscii::escape);
        for (const char c : out) ASSERT_TRUE(c >= 0x20 && c < 0x7F) << "U+" << std::hex << cp << ": " << out;
        std::string_view back;
        ASSERT_EQ(parser.parse(out).get(back), simdjson::SUCCESS) << out;
        ASSERT_EQ(back, name) << "U+" << std::hex << cp << " written as " << out;
        ++checked;
    };
    // Every bit of both halves of a surrogate pair, and the ends of each range.
    for (unsigned cp = 0x80; cp <= 0x10FFFF; cp += 0x7F) check(cp);
    for (unsigned bit = 0; bit < 20; ++bit) check(0x10000 + (1u << bit));
    for (const unsigned cp : {0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x103FFu, 0x10400u, 0x10FFFFu})
        check(cp);
    EXPECT_GT(checked, 8000u);
}

}  // namespace
