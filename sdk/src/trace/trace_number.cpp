#include "trace/trace_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace ringprof::merge {

TraceNumber add(TraceNumber a, TraceNumber b) {
    if (!a.is_float && !b.is_float) {
        std::int64_t r = 0;
        if (!__builtin_add_overflow(a.i, b.i, &r)) return TraceNumber::integer(r);
    }
    return TraceNumber::floating(a.as_double() + b.as_double());
}

TraceNumber subtract(TraceNumber a, TraceNumber b) {
    if (!a.is_float && !b.is_float) {
        std::int64_t r = 0;
        if (!__builtin_sub_overflow(a.i, b.i, &r)) return TraceNumber::integer(r);
    }
    return TraceNumber::floating(a.as_double() - b.as_double());
}

int compare(TraceNumber a, TraceNumber b) {
    if (!a.is_float && !b.is_float) return (a.i > b.i) - (a.i < b.i);
    const long double x = a.exact();
    const long double y = b.exact();
    return (x > y) - (x < y);
}

void append_python_float(std::string& out, double v) {
    if (std::isnan(v)) { out += "NaN"; return; }
    if (std::isinf(v)) { out += v > 0 ? "Infinity" : "-Infinity"; return; }
    // Shortest round-trip digits, then laid out the way CPython's repr does: positional notation
    // while the decimal point falls within (-4, 16], scientific with a two-digit exponent otherwise.
    char sci[64];
    const auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
    const std::string_view text(sci, static_cast<std::size_t>(res.ptr - sci));
    const std::size_t e = text.find('e');
    std::string_view mantissa = text.substr(0, e);
    const int exp10 = std::atoi(std::string(text.substr(e + 1)).c_str());
    const bool negative = !mantissa.empty() && mantissa[0] == '-';
    if (negative) mantissa.remove_prefix(1);
    std::string digits;
    for (char c : mantissa) if (c != '.') digits += c;
    if (negative) out += '-';
    const int decpt = exp10 + 1;  // value = 0.<digits> * 10^decpt
    const int ndigits = static_cast<int>(digits.size());
    if (decpt <= -4 || decpt > 16) {
        out += digits[0];
        if (ndigits > 1) { out += '.'; out.append(digits, 1, std::string::npos); }
        char buf[16];
        const int x = decpt - 1;
        std::snprintf(buf, sizeof buf, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
        out += buf;
    } else if (decpt <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-decpt), '0');
        out += digits;
    } else if (decpt >= ndigits) {
        out += digits;
        out.append(static_cast<std::size_t>(decpt - ndigits), '0');
        out += ".0";
    } else {
        out.append(digits, 0, static_cast<std::size_t>(decpt));
        out += '.';
        out.append(digits, static_cast<std::size_t>(decpt), std::string::npos);
    }
}

void append_number(std::string& out, TraceNumber n) {
    if (n.is_float) { append_python_float(out, n.d); return; }
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, n.i);
    out.append(buf, res.ptr);
}

std::int64_t round_half_even(TraceNumber n) {
    if (!n.is_float) return n.i;
    if (!std::isfinite(n.d)) return 0;
    return static_cast<std::int64_t>(std::nearbyint(n.d));
}

}  // namespace ringprof::merge
