// json_plain_ascii decides when the merge may copy a name or string as it is instead of escaping
// it: it must agree with append_json_string exactly, for every byte at every position (the 16-byte
// steps and the byte-by-byte tail alike).
#include <gtest/gtest.h>

#include <string>

#include "json/json_text.hpp"

namespace {

using ringprof::detail::append_json_string;
using ringprof::detail::json_plain_ascii;
using ringprof::detail::NonAscii;

bool escaping_changes_nothing(const std::string& s) {
    std::string out;
    append_json_string(out, s, NonAscii::escape);
    return out == '"' + s + '"';
}

TEST(JsonPlainAscii, TrueExactlyWhenEscapingWouldChangeNothing) {
    EXPECT_TRUE(json_plain_ascii(""));
    int plain = 0, not_plain = 0;
    for (std::size_t len = 1; len <= 40; ++len) {
        for (std::size_t pos = 0; pos < len; ++pos) {
            for (int b = 0; b < 256; ++b) {
                std::string s(len, 'a');
                s[pos] = static_cast<char>(b);
                const bool expected = escaping_changes_nothing(s);
                ASSERT_EQ(json_plain_ascii(s), expected) << "length " << len << ", byte " << b << " at " << pos;
                ++(expected ? plain : not_plain);
            }
        }
    }
    // Both answers were exercised: printable ASCII but '"' and '\\' (93 of 256 bytes) is plain.
    EXPECT_EQ(plain, 820 * 93);
    EXPECT_EQ(not_plain, 820 * (256 - 93));
}

}  // namespace
