// write_decimal prints every merged event's ts: it must print exactly what std::to_chars prints,
// at every length (each block boundary of its eight-digit steps) and both signs; decimal_length,
// which the merged file's slices measure themselves with, must count exactly those bytes.
#include <gtest/gtest.h>

#include <charconv>
#include <cstring>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "merge/decimal_text.hpp"

namespace {

using ringprof::detail::decimal_length;
using ringprof::detail::write_decimal;

std::string printed(std::int64_t v) {
    char buf[32];
    const std::size_t n = write_decimal(buf, v);
    return std::string(buf, n);
}

std::string expected(std::int64_t v) {
    char buf[32];
    return std::string(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

std::vector<std::int64_t> every_length_and_sign() {
    std::vector<std::int64_t> values{0, std::numeric_limits<std::int64_t>::max(),
                                     std::numeric_limits<std::int64_t>::min()};
    std::int64_t power = 1;
    for (int digits = 1; digits <= 18; ++digits) {
        power *= 10;  // 10^digits: the first number one digit longer, and its neighbours
        for (const std::int64_t v : {power - 1, power, power + 1, power / 10 * 3 + 7}) {
            values.push_back(v);
            values.push_back(-v);
        }
    }
    std::mt19937_64 rng(13);
    for (int i = 0; i < 200000; ++i) {
        const auto v = static_cast<std::int64_t>(rng() >> (rng() % 64));  // every magnitude
        values.push_back(v);
        values.push_back(-v);
    }
    return values;
}

TEST(WriteDecimal, PrintsWhatToCharsPrintsAtEveryLengthAndSign) {
    for (const std::int64_t v : every_length_and_sign()) ASSERT_EQ(printed(v), expected(v)) << v;
}

TEST(DecimalLength, CountsWhatToCharsPrintsAtEveryLengthAndSign) {
    for (const std::int64_t v : every_length_and_sign()) ASSERT_EQ(decimal_length(v), expected(v).size()) << v;
}

TEST(WriteDecimal, TellsTheLengthItPrintedAndWritesWithinTwentyFourBytes) {
    char buf[40];
    std::memset(buf, 'x', sizeof buf);
    EXPECT_EQ(write_decimal(buf, 1594662605425850), 16u);
    EXPECT_EQ(std::string(buf, 16), "1594662605425850");
    EXPECT_EQ(write_decimal(buf, std::numeric_limits<std::int64_t>::min()), 20u);
    for (std::size_t i = 24; i < sizeof buf; ++i) EXPECT_EQ(buf[i], 'x') << i;
}

}  // namespace
