#include "json/json_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iterator>

namespace ringprof::detail {

void append_python_float(std::string& out, double value) {
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    // fmt's shortest round-trip form already switches to exponent notation where Python's repr
    // does (below 1e-4 and from 1e16 on, two-digit exponents); Python only adds ".0" to a
    // number written without a point or exponent.
    const std::size_t start = out.size();
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), value);
    if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
    const unsigned char c = at(0);
    if (c < 0x80) return 1;
    // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
    if (c >= 0xC2 && c <= 0xDF) return continuation(at(1)) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return at(1) >= lo && at(1) <= hi && continuation(at(2)) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return at(1) >= lo && at(1) <= hi && continuation(at(2)) && continuation(at(3)) ? 4 : 0;
    }
    return 0;
}

void append_valid_utf8(std::string& out, std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0) {
            out += kReplacement;
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    append_valid_utf8(out, s);
    return out;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8_sequence_length(s, i);
            if (n == 0) {
                out += kReplacement;
                ++i;
            } else {
                out.append(s, i, n);
                i += n;
            }
            continue;
        }
        ++i;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20) {
                    char esc[8];
                    std::snprintf(esc, sizeof esc, "\\u%04x", c);
                    out += esc;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

}  // namespace ringprof::detail
