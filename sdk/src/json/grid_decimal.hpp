// Times on a binary grid of 2^-10 us, written as their exact decimals. The trace writes every
// time this way (backends/timeline_text.hpp says why) and `ringprof merge` prints such times back
// the same way: a number k / 1024 has at most 10 decimals, so its text parses to exactly that
// double and consumers' ts + dur is the sum written. Inline: the trace writer calls it twice a span.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace ringprof::detail {

// `units` of 2^-10 us as their exact decimal: "12", "0.0009765625", "-1.5"; with `point_zero`,
// a whole number keeps ".0" ("12.0"), as Python writes a float.
inline void append_grid_decimal(std::string& out, std::int64_t units, bool point_zero = false) {
    std::uint64_t mag = static_cast<std::uint64_t>(units);
    if (units < 0) {
        out.push_back('-');
        mag = ~mag + 1;
    }
    char buf[40];
    char* at = std::to_chars(buf, buf + sizeof buf, mag >> 10).ptr;
    std::uint64_t frac = (mag & 1023u) * 9765625u;  // 1/1024 = 0.0009765625: 10 digits
    if (frac != 0 || point_zero) {
        *at++ = '.';
        char digits[10];
        for (int i = 9; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
        int kept = 10;
        while (kept > 1 && digits[kept - 1] == '0') --kept;
        std::memcpy(at, digits, static_cast<std::size_t>(kept));
        at += kept;
    }
    out.append(buf, at);
}

}  // namespace ringprof::detail
