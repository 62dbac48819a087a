// Integers in decimal, eight digits at a time: every merged event's ts is a 16-digit integer, and
// std::to_chars, two digits per division, spent about 180 instructions on each (callgrind,
// bench_merge input: 6% of a merge). Here an eight-digit block is a few multiplications that split
// it into digits in the lanes of one 64-bit word, written with one store.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ringprof::detail {

// The eight digits of n < 10^8, leading zeros kept, as the bytes of a little-endian word's digit
// values (the first digit in the lowest byte), without the '0' added yet.
inline std::uint64_t eight_digit_lanes(std::uint32_t n) {
    // Two lanes of 32 bits: the first four digits, then the last four.
    std::uint64_t v = (n / 10000) | (std::uint64_t{n % 10000} << 32);
    // Each lane (< 10^4) into two 16-bit lanes: /100 as *10486 >> 20, exact below 10^4.
    std::uint64_t q = ((v * 10486) >> 20) & 0x0000007F0000007F;
    v = q | ((v - q * 100) << 16);
    // Each 16-bit lane (< 100) into two bytes: /10 as *103 >> 10, exact below 100.
    q = ((v * 103) >> 10) & 0x000F000F000F000F;
    return q | ((v - q * 10) << 8);
}

// Writes the eight digits of n < 10^8 at `out`, leading zeros kept, with one store.
inline void write_eight_digits(char* out, std::uint32_t n) {
    const std::uint64_t lanes = eight_digit_lanes(n) + 0x3030303030303030;
    std::memcpy(out, &lanes, 8);
}

// Writes v in decimal at `out` and returns its length. Writes up to 24 bytes (past the length
// too): `out` must have that much room.
inline std::size_t write_decimal(char* out, std::int64_t value) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return static_cast<std::size_t>(std::to_chars(out, out + 24, value).ptr - out);  // the lanes are little-endian
#endif
    constexpr std::uint64_t kAscii = 0x3030303030303030;
    std::size_t sign = 0;
    std::uint64_t v = static_cast<std::uint64_t>(value);
    if (value < 0) {
        *out = '-';
        sign = 1;
        v = 0 - v;
    }
    char* p = out + sign;
    // The leading block: 1 to 8 digits, its leading zeros dropped by shifting them out.
    const auto lead = [&p](std::uint64_t n) {
        std::uint64_t lanes = eight_digit_lanes(static_cast<std::uint32_t>(n));
        const std::size_t zeros = n == 0 ? 7 : static_cast<std::size_t>(__builtin_ctzll(lanes)) / 8;
        lanes = (lanes >> (8 * zeros)) + kAscii;
        std::memcpy(p, &lanes, 8);
        p += 8 - zeros;
    };
    const auto full = [&p](std::uint64_t n) {
        write_eight_digits(p, static_cast<std::uint32_t>(n));
        p += 8;
    };
    if (v < 100000000) {
        lead(v);
    } else if (v < 10000000000000000) {
        lead(v / 100000000);
        full(v % 100000000);
    } else {
        lead(v / 10000000000000000);  // at most 922
        v %= 10000000000000000;
        full(v / 100000000);
        full(v % 100000000);
    }
    return static_cast<std::size_t>(p - out);
}

// How many bytes write_decimal(out, value) writes, without writing them: the digits' count from
// the highest set bit (log10(2) ~ 1233 / 4096), corrected by one comparison.
inline std::size_t decimal_length(std::int64_t value) {
    static constexpr std::uint64_t kPow10[] = {1,
                                               10,
                                               100,
                                               1000,
                                               10000,
                                               100000,
                                               1000000,
                                               10000000,
                                               100000000,
                                               1000000000,
                                               10000000000,
                                               100000000000,
                                               1000000000000,
                                               10000000000000,
                                               100000000000000,
                                               1000000000000000,
                                               10000000000000000,
                                               100000000000000000,
                                               1000000000000000000,
                                               10000000000000000000u};
    const std::uint64_t v = value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    const unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(v | 1));
    const unsigned guess = (bits * 1233) >> 12;  // digits - 1 or digits
    return (value < 0) + guess + (v >= kPow10[guess]) + (v == 0);
}

}  // namespace ringprof::detail
