#include "trace/flat_event.hpp"

#include <charconv>
#include <cmath>

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

class Scanner {
public:
    Scanner(const char* p, const char* end) : p_(p), end_(end) {}

    bool at_end() const { return p_ == end_; }
    bool peek(char c) const { return p_ < end_ && *p_ == c; }
    bool take(char c) {
        if (!peek(c)) return false;
        ++p_;
        return true;
    }
    void skip_space() {
        while (p_ < end_ && is_space(*p_)) ++p_;
    }

    // A string of plain bytes only; false at an escape or any other byte.
    bool plain_string(std::string_view& out) {
        if (!take('"')) return false;
        const char* s = p_;
        while (p_ < end_ && kPlain.plain[static_cast<unsigned char>(*p_)]) ++p_;
        if (!peek('"')) return false;
        out = std::string_view(s, static_cast<std::size_t>(p_ - s));
        ++p_;
        return true;
    }

    // A JSON number as simdjson reads it: integers of up to 18 digits (always within int64) as
    // integers, numbers with a fraction or exponent as the correctly rounded double (from_chars,
    // like simdjson, rounds correctly). Gives up on -0 (its type is simdjson's to say), on more
    // than 19 digits and on anything out of range.
    bool number(TraceNumber& out, std::string_view& token) {
        const char* s = p_;
        const bool negative = take('-');
        const char* digits = p_;
        if (!(p_ < end_ && is_digit(*p_))) return false;
        if (*p_ == '0') ++p_;
        else while (p_ < end_ && is_digit(*p_)) ++p_;
        const std::size_t int_digits = static_cast<std::size_t>(p_ - digits);
        bool is_float = false;
        if (take('.')) {
            if (!(p_ < end_ && is_digit(*p_))) return false;
            while (p_ < end_ && is_digit(*p_)) ++p_;
            is_float = true;
        }
        if (peek('e') || peek('E')) {
            ++p_;
            if (!take('+')) take('-');
            if (!(p_ < end_ && is_digit(*p_))) return false;
            while (p_ < end_ && is_digit(*p_)) ++p_;
            is_float = true;
        }
        token = std::string_view(s, static_cast<std::size_t>(p_ - s));
        std::size_t all_digits = 0;
        for (const char* d = digits; d < p_ && *d != 'e' && *d != 'E'; ++d) all_digits += *d != '.';
        // Past 19 digits simdjson 3.0.1 does not always round as from_chars does (it reads
        // 12345678901234567890.5 as 0.0): such numbers are simdjson's to read.
        if (all_digits > 19) return false;
        if (!is_float) {
            if (int_digits > 18 || (negative && *digits == '0')) return false;
            std::int64_t v = 0;
            for (const char* d = digits; d < p_; ++d) v = v * 10 + (*d - '0');
            out = TraceNumber::integer(negative ? -v : v);
            return true;
        }
        double d = 0;
        const auto r = std::from_chars(s, p_, d);
        if (r.ec != std::errc() || r.ptr != p_ || !std::isfinite(d)) return false;
        out = TraceNumber::floating(d);
        return true;
    }

    bool literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }

    // A value whose content is not used: a plain string, a number or a literal.
    bool skip_scalar() {
        if (peek('"')) { std::string_view s; return plain_string(s); }
        if (peek('t')) return literal("true");
        if (peek('f')) return literal("false");
        if (peek('n')) return literal("null");
        TraceNumber n;
        std::string_view token;
        return number(n, token);
    }

    // After a member: skips to the next key (true, `more`) or past the closing '}' (true, !more).
    bool after_member(bool& more) {
        skip_space();
        if (take(',')) { skip_space(); more = true; return true; }
        if (take('}')) { more = false; return true; }
        return false;
    }

private:
    const char* p_;
    const char* end_;
};

// args: an object of plain strings and numbers, written back as Python's json.dumps writes it
// (what read_args in trace_reader.cpp writes for the same values), or null.
bool read_flat_args(Scanner& in, ParsedEvent& p) {
    p.args.clear();
    if (in.peek('n')) return in.literal("null");
    if (!in.take('{')) return false;
    in.skip_space();
    if (in.take('}')) return true;  // {} is falsy in Python: no args
    std::string& out = p.args;
    out += '{';
    for (bool more = true; more;) {
        std::string_view key;
        if (!in.plain_string(key)) return false;
        in.skip_space();
        if (!in.take(':')) return false;
        in.skip_space();
        if (out.size() > 1) out += ", ";
        out += '"';
        out += key;
        out += "\": ";
        if (in.peek('"')) {
            std::string_view s;
            if (!in.plain_string(s)) return false;
            out += '"';
            out += s;
            out += '"';
            note_string_arg(p, key, s);
        } else {
            TraceNumber n;
            std::string_view token;
            if (!in.number(n, token)) return false;
            if (n.is_float) detail::append_python_float(out, n.d); else out += token;
            note_number_arg(p, key, n, token);
        }
        if (!in.after_member(more)) return false;
    }
    out += '}';
    return true;
}

bool read_member(Scanner& in, std::string_view key, ParsedEvent& p) {
    if (key == "ph" || key == "name") {
        std::string_view s;
        if (!in.plain_string(s)) return false;
        if (key == "ph") { p.ph = s; p.has_ph = true; }
        else { p.name = s; p.has_name = p.name_ok = true; }
        return true;
    }
    if (key == "pid" || key == "tid") {
        std::string_view id;
        if (in.peek('"')) {
            if (!in.plain_string(id)) return false;
        } else {
            TraceNumber n;
            if (!in.number(n, id)) return false;  // ids keep the number as written
        }
        if (key == "pid") { p.pid = id; p.has_pid = true; } else { p.tid = id; p.has_tid = true; }
        return true;
    }
    if (key == "ts" || key == "dur") {
        TraceNumber n;
        std::string_view token;
        if (!in.number(n, token)) return false;
        if (!time_in_range(n)) { p.bad_field = true; return true; }
        if (key == "ts") { p.ts = n; p.has_ts = true; } else { p.dur = n; p.has_dur = true; }
        return true;
    }
    if (key == "args") return read_flat_args(in, p);
    return in.skip_scalar();
}

}  // namespace

bool parse_flat_event(std::string_view text, ParsedEvent& p) {
    Scanner in(text.data(), text.data() + text.size());
    in.skip_space();
    if (!in.take('{')) return false;
    in.skip_space();
    bool more = !in.take('}');
    while (more) {
        std::string_view key;
        if (!in.plain_string(key)) return false;
        in.skip_space();
        if (!in.take(':')) return false;
        in.skip_space();
        if (!read_member(in, key, p) || !in.after_member(more)) return false;
    }
    in.skip_space();
    return in.at_end();
}

}  // namespace ringprof::detail
