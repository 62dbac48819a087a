#include "trace/flat_event.hpp"

#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "json/json_text.hpp"

namespace ringprof::detail {

namespace {

// Bytes a string may hold for the fast path: printable ASCII but '"' and '\\', the bytes JSON
// and Python's json.dumps both write as they are (json_plain_ascii's set).
struct PlainTable {
    bool plain[256] = {};
    constexpr PlainTable() {
        for (int c = 0x20; c < 0x7F; ++c) plain[c] = c != '"' && c != '\\';
    }
};
constexpr PlainTable kPlain;

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool kEightAtOnce = true;
#else
constexpr bool kEightAtOnce = false;
#endif

// Eight bytes that are all ASCII digits: every high nibble 3, and no low nibble above 9 (adding 6
// carries those into the high nibble).
inline bool eight_digits(std::uint64_t w) {
    constexpr std::uint64_t high = 0xF0F0F0F0F0F0F0F0, threes = 0x3030303030303030, sixes = 0x0606060606060606;
    return (w & high) == threes && ((w + sixes) & high) == threes;
}

// Their value, the first byte most significant: digits are paired, then pairs, then quads.
inline std::uint64_t eight_digit_value(std::uint64_t w) {
    w -= 0x3030303030303030;
    w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FF;
    w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFF;
    return (w * 10000 + (w >> 32)) & 0xFFFFFFFF;
}

// Each step takes the position and returns the one after what it read, or nullptr when the fast
// path gives up. Positions live in locals, not in an object: through a member, every byte read
// (a char, which may alias anything) made the compiler reload the position, and skipping
// whitespace alone was a tenth of a merge's instructions.
using Pos = const char*;

inline Pos skip_space(Pos q, Pos end) {
    // Mostly none or the one space json.dumps writes after ':' and ','.
    if (q < end && *q == ' ') ++q;
    if (q < end && static_cast<unsigned char>(*q) <= ' ') {
        while (q < end && is_space(*q)) ++q;
    }
    return q;
}

inline Pos expect(Pos q, Pos end, char c) { return q && q < end && *q == c ? q + 1 : nullptr; }

// A string of plain bytes only (q at its opening quote); nullptr at an escape or any other byte.
inline Pos plain_string(Pos q, Pos end, std::string_view& out) {
    if (!(q < end && *q == '"')) return nullptr;
    const Pos s = ++q;
#if defined(__SSE2__)
    // 16 bytes a step while 16 remain: the first byte that is not plain, by json_plain_ascii's test.
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    while (end - q >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
        const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)),
                                          _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        const int mask = _mm_movemask_epi8(stop);
        if (mask != 0) {
            q += __builtin_ctz(static_cast<unsigned>(mask));
            goto stopped;
        }
        q += 16;
    }
#endif
    while (q < end && kPlain.plain[static_cast<unsigned char>(*q)]) ++q;
#if defined(__SSE2__)
stopped:
#endif
    if (!(q < end && *q == '"')) return nullptr;
    out = std::string_view(s, static_cast<std::size_t>(q - s));
    return q + 1;
}

// Digits from q, eight at a time where eight remain; their value (mod 2^64) added into v.
inline Pos digits(Pos q, Pos end, std::uint64_t& v) {
    if constexpr (kEightAtOnce) {
        while (end - q >= 8) {
            std::uint64_t w;
            std::memcpy(&w, q, 8);
            if (!eight_digits(w)) break;
            v = v * 100000000 + eight_digit_value(w);
            q += 8;
        }
    }
    while (q < end && is_digit(*q)) v = v * 10 + static_cast<std::uint64_t>(*q++ - '0');
    return q;
}

// The double nearest to m * 10^e when one IEEE operation on exact operands gives it (Clinger's
// fast path: m and 10^|e| are exact doubles, and a product or quotient is correctly rounded), as
// from_chars would; false otherwise. from_chars took 140 instructions a float (callgrind), the 2.5
// of every TensorFlow op's dur: 1% of a merge.
bool exact_fast_double(std::uint64_t m, int e, bool negative, double& out) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (m > (std::uint64_t{1} << 53) || e < -22 || e > 22) return false;
    const double d = static_cast<double>(m);
    out = e < 0 ? d / kPow10[-e] : d * kPow10[e];
    if (negative) out = -out;
    return true;
#else
    (void)m, (void)e, (void)negative, (void)out;
    return false;
#endif
}

// A JSON number as simdjson reads it: integers of up to 18 digits (always within int64) as
// integers, numbers with a fraction or exponent as the correctly rounded double (from_chars,
// like simdjson, rounds correctly). Gives up on -0 (its type is simdjson's to say), on more than
// 19 digits and on anything out of range. Sets `stop` past the number, or to nullptr when it
// gives up. The number comes back in two registers: through a reference it went to memory,
// written as a flag and a value and read back by the caller as one 16-byte word, a load the
// store buffer cannot forward (13% of the fast reader's samples, perf annotate: every float
// duration comes here).
TraceNumber general_number(Pos q, Pos end, Pos& stop) {
    stop = nullptr;
    const Pos s = q;
    const bool negative = q < end && *q == '-';
    q += negative;
    const Pos first_digit = q;
    if (!(q < end && is_digit(*q))) return {};
    std::uint64_t v = 0;  // all the digits, the fraction's too (mod 2^64: used only within 19)
    q = *q == '0' ? q + 1 : digits(q, end, v);
    std::size_t all_digits = static_cast<std::size_t>(q - first_digit);
    bool is_float = false;
    int exponent = 0;  // of ten, on v
    if (q < end && *q == '.') {
        const Pos fraction = ++q;
        q = digits(q, end, v);
        if (q == fraction) return {};
        all_digits += static_cast<std::size_t>(q - fraction);
        exponent = -static_cast<int>(q - fraction);
        is_float = true;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        ++q;
        const bool below = q < end && *q == '-';
        if (q < end && (*q == '+' || *q == '-')) ++q;
        if (!(q < end && is_digit(*q))) return {};
        int written = 0;
        for (; q < end && is_digit(*q); ++q) written = written < 10000 ? written * 10 + (*q - '0') : written;
        exponent += below ? -written : written;
        is_float = true;
    }
    // Past 19 digits simdjson 3.0.1's number reading and from_chars may not agree: such numbers
    // are simdjson's to read.
    if (all_digits > (is_float ? 19u : 18u)) return {};
    if (!is_float) {
        if (negative && *first_digit == '0') return {};
        const auto value = static_cast<std::int64_t>(v);
        stop = q;
        return TraceNumber::integer(negative ? -value : value);
    }
    double d = 0;
    if (!exact_fast_double(v, exponent, negative, d)) {
        const auto r = std::from_chars(s, q, d);
        if (r.ec != std::errc() || r.ptr != q || !std::isfinite(d)) return {};
    }
    stop = q;
    return TraceNumber::floating(d);
}

// How many digits (0-8) begin the word at q, and their value: the first byte that is not a digit
// sets its high bit in `other` (a carry or borrow only runs into the bytes after it, which are
// then shifted out).
inline unsigned word_digits(Pos q, std::uint64_t& value) {
    std::uint64_t w;
    std::memcpy(&w, q, 8);
    const std::uint64_t other = ((w + 0x4646464646464646) | (w - 0x3030303030303030)) & 0x8080808080808080;
    if (other == 0) {
        value = eight_digit_value(w);
        return 8;
    }
    const unsigned count = static_cast<unsigned>(__builtin_ctzll(other)) / 8;
    value = count == 0 ? 0 : eight_digit_value((w << (64 - 8 * count)) | (0x3030303030303030 >> (8 * count)));
    return count;
}

// Nearly every number in a trace is a non-negative integer of at most 15 digits (pids, times,
// durations): read inline a word at a time, where the call and the byte loop of general_number
// took about 100 instructions a number (callgrind, bench_merge input). Anything else (a sign, a
// fraction, an exponent), or a number too near the end of the text, is general_number's.
[[gnu::always_inline]] inline Pos number(Pos q, Pos end, TraceNumber& out, std::string_view& token) {
    static constexpr std::uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (kEightAtOnce && end - q > 16) {
        std::uint64_t v = 0;
        unsigned n = word_digits(q, v);
        if (n == 8) {
            std::uint64_t low = 0;
            const unsigned more = word_digits(q + 8, low);
            v = v * kPow10[more] + low;
            n += more;
        }
        const char after = q[n];
        // One digit to 15, no leading zero of several (general_number's to stop after).
        if (n - 1 < 15 && (n == 1 || *q != '0') && after != '.' && (after | 0x20) != 'e') {
            out = TraceNumber::integer(static_cast<std::int64_t>(v));
            token = std::string_view(q, n);
            return q + n;
        }
    }
    Pos stop;
    out = general_number(q, end, stop);
    if (stop) token = std::string_view(q, static_cast<std::size_t>(stop - q));
    return stop;
}

inline Pos literal(Pos q, Pos end, std::string_view word) {
    if (static_cast<std::size_t>(end - q) < word.size() || std::string_view(q, word.size()) != word) return nullptr;
    return q + word.size();
}

// A value whose content is not used: a plain string, a number or a literal.
Pos skip_scalar(Pos q, Pos end) {
    if (q >= end) return nullptr;
    switch (*q) {
        case '"': {
            std::string_view s;
            return plain_string(q, end, s);
        }
        case 't':
            return literal(q, end, "true");
        case 'f':
            return literal(q, end, "false");
        case 'n':
            return literal(q, end, "null");
        default: {
            TraceNumber n;
            std::string_view token;
            return number(q, end, n, token);
        }
    }
}

// After a member's value: past the ',' and the space after it (`more`), or past the closing '}'.
inline Pos after_member(Pos q, Pos end, bool& more) {
    // Mostly ", k" (json.dumps) or ",k" (compact writers): no loop over spaces.
    if (end - q >= 3 && q[0] == ',') {
        more = true;
        if (static_cast<unsigned char>(q[1]) > ' ') return q + 1;
        if (q[1] == ' ' && static_cast<unsigned char>(q[2]) > ' ') return q + 2;
    }
    q = skip_space(q, end);
    if (q < end && *q == ',') {
        more = true;
        return skip_space(q + 1, end);
    }
    if (q < end && *q == '}') {
        more = false;
        return q + 1;
    }
    return nullptr;
}

// A key and its colon, up to the value.
inline Pos key_of(Pos q, Pos end, std::string_view& key) {
    q = plain_string(q, end, key);
    if (!q) return nullptr;
    if (end - q >= 3 && q[0] == ':') {  // ": v" or ":v", as in after_member
        if (static_cast<unsigned char>(q[1]) > ' ') return q + 1;
        if (q[1] == ' ' && static_cast<unsigned char>(q[2]) > ' ') return q + 2;
    }
    q = expect(skip_space(q, end), end, ':');
    return q ? skip_space(q, end) : nullptr;
}

// The args text as it is built: in a local buffer, copied into p.args once, where appending to
// the string piece by piece (a call and a capacity check for each of eight pieces a member) made
// reading an event's args cost about 880 instructions (callgrind, bench_merge input).
class ArgsWriter {
public:
    explicit ArgsWriter(Pos input_end) : input_end_(input_end) {}

    // Each returns false when the args outgrow the buffer: the fast path then gives up on the
    // event, and simdjson reads it.
    // A piece of the input (a key, a string, a number as written): a short one is copied as one
    // fixed 16-byte word when the input has that many bytes left.
    bool input(std::string_view piece) {
        if (piece.size() > room()) return false;
        if (piece.size() <= 16 && input_end_ - piece.data() >= 16)
            std::memcpy(at_, piece.data(), 16);
        else
            std::memcpy(at_, piece.data(), piece.size());
        at_ += piece.size();
        return true;
    }
    template <std::size_t N>
    bool literal(const char (&s)[N]) {
        return other(std::string_view(s, N - 1));
    }
    bool other(std::string_view s) {
        if (s.size() > room()) return false;
        std::memcpy(at_, s.data(), s.size());
        at_ += s.size();
        return true;
    }
    bool empty() const { return at_ == text_; }
    void copy_to(std::string& out) const { out.assign(text_, static_cast<std::size_t>(at_ - text_)); }

private:
    static constexpr std::size_t kSize = 1024;
    std::size_t room() const { return static_cast<std::size_t>(text_ + kSize - at_); }
    char text_[kSize + 16];  // 16 spare bytes for the fixed copies
    char* at_ = text_;
    Pos input_end_;
};

// args: an object of plain strings and numbers, written back as Python's json.dumps writes it
// (what read_args in trace_reader.cpp writes for the same values), or null.
Pos read_flat_args(Pos q, Pos end, ParsedEvent& p) {
    p.args.clear();
    if (q < end && *q == 'n') return literal(q, end, "null");
    q = expect(q, end, '{');
    if (!q) return nullptr;
    q = skip_space(q, end);
    if (q < end && *q == '}') return q + 1;  // {} is falsy in Python: no args
    ArgsWriter out(end);
    for (bool more = true; more;) {
        std::string_view key;
        if (!(q = key_of(q, end, key))) return nullptr;
        if (!(out.empty() ? out.literal("{\"") : out.literal(", \"")) || !out.input(key)) return nullptr;
        if (q < end && *q == '"') {
            std::string_view s;
            if (!(q = plain_string(q, end, s))) return nullptr;
            if (!out.literal("\": \"") || !out.input(s) || !out.literal("\"")) return nullptr;
            note_string_arg(p, key, s);
        } else {
            TraceNumber n;
            std::string_view token;
            if (!(q = number(q, end, n, token)) || !out.literal("\": ")) return nullptr;
            if (n.is_float) {
                thread_local std::string repr;
                repr.clear();
                detail::append_python_float(repr, n.d);
                if (!out.other(repr)) return nullptr;
            } else if (!out.input(token)) {
                return nullptr;
            }
            note_number_arg(p, key, n, token);
        }
        if (!(q = after_member(q, end, more))) return nullptr;
    }
    if (!out.literal("}")) return nullptr;
    out.copy_to(p.args);
    return q;
}

[[gnu::always_inline]] inline Pos read_id(Pos q, Pos end, bool& has, std::string_view& id) {
    if (q < end && *q == '"')
        q = plain_string(q, end, id);
    else {
        TraceNumber n;
        q = number(q, end, n, id);
    }  // ids keep the number as written
    has = q != nullptr;
    return q;
}

[[gnu::always_inline]] inline Pos read_time(Pos q, Pos end, bool& has, TraceNumber& out, ParsedEvent& p,
                                            std::string_view* text) {
    TraceNumber n;
    std::string_view token;
    if (!(q = number(q, end, n, token))) return nullptr;
    if (!time_in_range(n)) {
        p.bad_field = true;
        if (text) *text = std::string_view();
        return q;
    }
    out = n;
    has = true;
    if (text) *text = !n.is_float || python_number_text(token, n) ? token : std::string_view();
    return q;
}

// The members the reader uses.
enum class Field { ph, ts, pid, tid, dur, name, args, other };

// Told apart by length before a full compare.
Field field_of(std::string_view key) {
    switch (key.size()) {
        case 2:
            return key == "ph" ? Field::ph : key == "ts" ? Field::ts : Field::other;
        case 3:
            return key == "pid" ? Field::pid : key == "tid" ? Field::tid : key == "dur" ? Field::dur : Field::other;
        case 4:
            return key == "name" ? Field::name : key == "args" ? Field::args : Field::other;
        default:
            return Field::other;
    }
}

// The bytes of s as a little-endian word, the first byte lowest (what memcpy of s gives).
template <std::size_t N>
constexpr std::uint64_t word_of(const char (&s)[N]) {
    static_assert(N - 1 <= 8, "at most a word");
    std::uint64_t w = 0;
    for (std::size_t i = 0; i + 1 < N; ++i) w |= std::uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
    return w;
}

// The used keys as json.dumps and compact writers both put them (the colon right after the
// quote), recognised from the word at the opening quote by one masked compare each: reading the
// key as a string and then comparing it took about 40 instructions a key. Returns the position of
// the value, or nullptr for any other key or spelling (which key_of reads).
inline Pos known_key(Pos q, Pos end, Field& f) {
    if (!kEightAtOnce || end - q < 8) return nullptr;
    std::uint64_t w;
    std::memcpy(&w, q, 8);
    const auto is = [w](std::uint64_t key, std::size_t bytes) {
        return (w & (~std::uint64_t{0} >> (64 - 8 * bytes))) == key;
    };
    std::size_t n = 0;
    switch (q[1]) {
        case 'p':
            if (is(word_of("\"ph\":"), 5))
                f = Field::ph, n = 5;
            else if (is(word_of("\"pid\":"), 6))
                f = Field::pid, n = 6;
            break;
        case 't':
            if (is(word_of("\"ts\":"), 5))
                f = Field::ts, n = 5;
            else if (is(word_of("\"tid\":"), 6))
                f = Field::tid, n = 6;
            break;
        case 'd':
            if (is(word_of("\"dur\":"), 6)) f = Field::dur, n = 6;
            break;
        case 'n':
            if (is(word_of("\"name\":"), 7)) f = Field::name, n = 7;
            break;
        case 'a':
            if (is(word_of("\"args\":"), 7)) f = Field::args, n = 7;
            break;
        default:
            break;
    }
    return n ? skip_space(q + n, end) : nullptr;
}

[[gnu::always_inline]] inline Pos read_member(Pos q, Pos end, Field field, ParsedEvent& p) {
    switch (field) {
        case Field::ph:
            q = plain_string(q, end, p.ph);
            p.has_ph = q != nullptr;
            return q;
        case Field::ts:
            return read_time(q, end, p.has_ts, p.ts, p, nullptr);
        case Field::pid:
            return read_id(q, end, p.has_pid, p.pid);
        case Field::tid:
            return read_id(q, end, p.has_tid, p.tid);
        case Field::dur:
            return read_time(q, end, p.has_dur, p.dur, p, &p.dur_text);
        case Field::name:
            q = plain_string(q, end, p.name);
            p.has_name = p.name_ok = p.name_plain = q != nullptr;
            return q;
        case Field::args:
            return read_flat_args(q, end, p);
        case Field::other:
            break;
    }
    return skip_scalar(q, end);
}

}  // namespace

// Whether Python prints the number `token` reads as exactly `token` (json.dumps: int as written,
// float as repr), so the merged line can copy it. An integer the fast path took is canonical (no
// leading zero, no -0). A float is, when written in fixed notation with at most 15 significant
// digits (every such decimal is the only one of at most 15 digits for its double, so it is the
// shortest, which repr prints), no trailing zero but in "N.0", and within repr's fixed range
// 1e-4 <= |x| < 1e16 (or zero). Anything else is printed from the value as before.
// One pass over the token: with find, find_first_of and substr it took about 260 instructions a
// float, now 56 (callgrind, bench_merge input: the 2.5 of every TensorFlow op's dur; 1.3% of a
// merge's instructions).
bool python_number_text(std::string_view token, TraceNumber n) {
    if (!n.is_float) return true;
    const char* p = token.data();
    const char* const end = p + token.size();
    if (p < end && *p == '-') ++p;
    const char* const whole = p;
    while (p < end && is_digit(*p)) ++p;
    if (p == end || *p != '.') return false;  // no fraction, or an exponent
    const std::size_t whole_digits = static_cast<std::size_t>(p - whole);
    const char* const fraction = ++p;
    while (p < end && is_digit(*p)) ++p;
    if (p != end || p == fraction) return false;  // an exponent follows, or no digit after the dot
    const std::size_t fraction_digits = static_cast<std::size_t>(end - fraction);
    const bool fraction_zero = fraction_digits == 1 && *fraction == '0';
    if (end[-1] == '0' && !fraction_zero) return false;  // repr writes no trailing zeros
    if (whole_digits != 1 || *whole != '0') return whole_digits + (fraction_zero ? 0 : fraction_digits) <= 15;
    const char* first = fraction;
    while (first < end && *first == '0') ++first;
    if (first == end) return true;           // 0.0 or -0.0
    if (first - fraction > 3) return false;  // below 1e-4: repr writes 1e-05
    return static_cast<std::size_t>(end - first) <= 15;
}

namespace {

// Where each member's value lay in the event just read, for FlatEventReader to learn its layout.
struct NoLayout {
    void member(Pos, Pos, Field) {}
};
struct LayoutSeen {
    static constexpr unsigned kMost = FlatEventReader::kMembers;
    Pos starts[kMost], ends[kMost];
    Field fields[kMost];
    unsigned members = 0;
    bool too_many = false;
    void member(Pos start, Pos end, Field field) {
        if (members == kMost) {
            too_many = true;
            return;
        }
        starts[members] = start, ends[members] = end, fields[members] = field;
        ++members;
    }
};

template <class Layout>
const char* read_object(const char* begin, const char* end, ParsedEvent& p, Layout& layout) {
    Pos q = expect(begin, end, '{');
    if (!q) return nullptr;
    q = skip_space(q, end);
    if (q < end && *q == '}') return q + 1;
    for (bool more = true; more;) {
        Field field = Field::other;
        if (const Pos value = known_key(q, end, field)) {
            q = value;
        } else {
            std::string_view key;
            if (!(q = key_of(q, end, key))) return nullptr;
            field = field_of(key);
        }
        const Pos value = q;
        if (!(q = read_member(q, end, field, p))) return nullptr;
        layout.member(value, q, field);
        if (!(q = after_member(q, end, more))) return nullptr;
    }
    return q;
}

// Whether the `size` (at most FlatEventReader::kGap) bytes at q, all before `end`, are `gap`'s;
// reads kGap bytes from q, which the caller guarantees readable.
inline bool gap_at(Pos q, Pos end, const char* gap, unsigned size) {
    if (static_cast<std::size_t>(end - q) < size) return false;
#if defined(__SSE2__)
    static_assert(FlatEventReader::kGap == 32, "two 16-byte compares");
    const auto equal = [&](int at) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + at));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(gap + at));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
    };
    std::uint64_t same = equal(0);
    if (size > 16) same |= std::uint64_t{equal(16)} << 16;
    const std::uint64_t wanted = (std::uint64_t{1} << size) - 1;
    return (same & wanted) == wanted;
#else
    return std::memcmp(q, gap, size) == 0;
#endif
}

}  // namespace

const char* read_flat_event(const char* begin, const char* end, ParsedEvent& p) {
    NoLayout none;
    return read_object(begin, end, p, none);
}

const char* FlatEventReader::read(const char* begin, const char* end, ParsedEvent& p) {
    if (members_ != 0) {
        Pos q = begin;
        unsigned i = 0;
        for (; i < members_; ++i) {
            const Member& m = member_[i];
            if (!gap_at(q, end, m.gap, m.gap_size)) break;
            if (!(q = read_member(q + m.gap_size, end, static_cast<Field>(m.field), p))) break;
        }
        if (i == members_ && gap_at(q, end, close_, close_size_)) return q + close_size_;
        // Another layout: read afresh. What the members matched so far wrote into p, the same
        // members (same keys, same values) write again, so p needs no reset.
    }
    LayoutSeen seen;
    const char* close = read_object(begin, end, p, seen);
    members_ = 0;
    if (!close || seen.too_many || seen.members == 0) return close;
    // The bytes before each value (from the end of the one before, or from the '{'), and after the
    // last one up to the '}'.
    Pos from = begin;
    for (unsigned i = 0; i < seen.members; ++i) {
        const auto size = static_cast<std::size_t>(seen.starts[i] - from);
        if (size > kGap) return close;
        std::memcpy(member_[i].gap, from, size);
        member_[i].gap_size = static_cast<std::uint8_t>(size);
        member_[i].field = static_cast<std::uint8_t>(seen.fields[i]);
        from = seen.ends[i];
    }
    const auto size = static_cast<std::size_t>(close - from);
    if (size > kGap) return close;
    std::memcpy(close_, from, size);
    close_size_ = static_cast<std::uint8_t>(size);
    members_ = static_cast<std::uint8_t>(seen.members);
    return close;
}

bool parse_flat_event(std::string_view text, ParsedEvent& p) {
    const char* end = text.data() + text.size();
    const char* q = read_flat_event(skip_space(text.data(), end), end, p);
    return q && skip_space(q, end) == end;
}

}  // namespace ringprof::detail
