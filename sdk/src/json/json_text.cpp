#include "json/json_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

unsigned decode_utf8(std::string_view seq) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(seq[k])); };
    switch (seq.size()) {
        case 1:
            return b(0);
        case 2:
            return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
        case 3:
            return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
        default:
            return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

// The one walk over arbitrary bytes as UTF-8. Runs of bytes `plain` accepts (ASCII only) are
// appended whole; every other character goes to `other(out, code_point, its_utf8_bytes)`, a byte
// that starts no valid sequence as U+FFFD.
template <class Plain, class Other>
void walk_utf8(std::string& out, std::string_view s, Plain plain, Other other) {
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t j = i;
        while (j < s.size() && plain(static_cast<unsigned char>(s[j]))) ++j;
        out.append(s.data() + i, j - i);
        if (j == s.size()) return;
        i = j;
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0) {
            other(out, 0xFFFDu, kReplacement);
            ++i;
        } else {
            const std::string_view seq = s.substr(i, n);
            other(out, decode_utf8(seq), seq);
            i += n;
        }
    }
}

void append_u_escape(std::string& out, unsigned cp) {
    static const char hex[] = "0123456789abcdef";
    const char buf[6] = {'\\', 'u', hex[(cp >> 12) & 0xF], hex[(cp >> 8) & 0xF], hex[(cp >> 4) & 0xF], hex[cp & 0xF]};
    out.append(buf, 6);
}

// An ASCII character JSON needs escaped, as Python's json module escapes it.
void append_ascii_escape(std::string& out, unsigned c) {
    switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            append_u_escape(out, c);
    }
}

}  // namespace

void append_valid_utf8(std::string& out, std::string_view s) {
    walk_utf8(
        out, s, [](unsigned char c) { return c < 0x80; },
        [](std::string& o, unsigned, std::string_view seq) { o += seq; });
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    append_valid_utf8(out, s);
    return out;
}

bool json_plain_ascii(std::string_view s) {
    std::size_t i = 0;
#if defined(__SSE2__)
    // 16 bytes per step: merged names and args are checked once per event (a byte loop was 5% of
    // a merge's instructions).
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; i + 16 <= s.size(); i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
        // Signed compare: bytes from 0x80 up are negative, so below 0x20 too.
        const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)),
                                         _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (_mm_movemask_epi8(bad) != 0) return false;
    }
#endif
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') return false;
    }
    return true;
}

void append_json_string(std::string& out, std::string_view s, NonAscii non_ascii) {
    out += '"';
    if (non_ascii == NonAscii::keep) {
        walk_utf8(
            out, s, [](unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; },
            [](std::string& o, unsigned cp, std::string_view seq) {
                if (cp < 0x80)
                    append_ascii_escape(o, cp);
                else
                    o += seq;
            });
    } else {
        // Python's ensure_ascii: DEL and everything above ASCII as \uXXXX, surrogate pairs above
        // the Basic Multilingual Plane.
        walk_utf8(
            out, s, [](unsigned char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; },
            [](std::string& o, unsigned cp, std::string_view) {
                if (cp < 0x80) {
                    append_ascii_escape(o, cp);
                } else if (cp > 0xFFFF) {
                    append_u_escape(o, 0xD800 + ((cp - 0x10000) >> 10));
                    append_u_escape(o, 0xDC00 + ((cp - 0x10000) & 0x3FF));
                } else {
                    append_u_escape(o, cp);
                }
            });
    }
    out += '"';
}

}  // namespace ringprof::detail
