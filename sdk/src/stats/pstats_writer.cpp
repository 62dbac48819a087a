// The statistics as Python's pstats module loads them (what cProfile's dump_stats writes): a
// marshal-serialized dict
//
//     {(file, line, name): (primitive calls, calls, tottime, cumtime,
//                           {caller: (calls, primitive calls, tottime, cumtime)})}
//
// written with the handful of marshal codes it needs. marshal's format is fixed little-endian
// and every version of Python 3 reads these codes, so snakeviz, gprof2dot and tuna open it too.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

using Label = std::tuple<std::string, std::uint32_t, std::string>;  // pstats' (file, line, name)

// One entry of the dict: counts summed over the rows sharing its label, callers by label.
struct Entry {
    CallCounts counts;
    std::map<Label, CallCounts> callers;
};

void add(CallCounts& into, const CallCounts& c) {
    into.ncalls += c.ncalls;
    into.primitive_calls += c.primitive_calls;
    into.tottime += c.tottime;
    into.cumtime += c.cumtime;
}

class MarshalWriter {
public:
    std::string& out;

    void byte(char c) { out += c; }
    void int32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
    // TYPE_INT below 2^31, else TYPE_LONG: base 2^15 digits, least significant first.
    void integer(std::uint64_t v) {
        if (v < (std::uint64_t{1} << 31)) {
            byte('i');
            int32(static_cast<std::uint32_t>(v));
            return;
        }
        std::uint16_t digits[5];
        std::uint32_t n = 0;
        for (; v != 0; v >>= 15) digits[n++] = static_cast<std::uint16_t>(v & 0x7FFF);
        byte('l');
        int32(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            out += static_cast<char>(digits[i] & 0xFF);
            out += static_cast<char>(digits[i] >> 8);
        }
    }
    void real(double v) {  // TYPE_BINARY_FLOAT: the IEEE double, little-endian
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        byte('g');
        for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xFF);
    }
    // TYPE_UNICODE. marshal refuses a string that is not UTF-8 (and the whole file with it): any
    // invalid byte becomes U+FFFD.
    void text(const std::string& s) {
        const std::string valid = valid_utf8(s);
        byte('u');
        int32(static_cast<std::uint32_t>(valid.size()));
        out += valid;
    }
    void tuple(std::uint32_t n) {  // TYPE_SMALL_TUPLE; the items follow
        byte(')');
        byte(static_cast<char>(n));
    }
    void label(const Label& l) {
        tuple(3);
        text(std::get<0>(l));
        integer(std::get<1>(l));
        text(std::get<2>(l));
    }
    // A caller's value lists calls before primitive calls, an entry's the other way round:
    // cProfile's order, which pstats relies on.
    void caller_counts(const CallCounts& c) {
        tuple(4);
        integer(c.ncalls);
        integer(c.primitive_calls);
        real(c.tottime);
        real(c.cumtime);
    }

private:
    static std::size_t utf8_length(const unsigned char* p, std::size_t left) {
        const unsigned char c = p[0];
        std::size_t n;
        std::uint32_t cp;
        if (c < 0x80) return 1;
        if (c >= 0xC2 && c <= 0xDF)
            n = 2, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 3, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 4, cp = c & 0x07;
        else
            return 0;
        if (left < n) return 0;
        for (std::size_t i = 1; i < n; ++i) {
            if ((p[i] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
        if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        return n;
    }
    static std::string valid_utf8(const std::string& s) {
        std::string out;
        out.reserve(s.size());
        const auto* p = reinterpret_cast<const unsigned char*>(s.data());
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t n = utf8_length(p + i, s.size() - i);
            if (n == 0) {
                out += "\xEF\xBF\xBD";
                ++i;
            } else {
                out.append(s, i, n);
                i += n;
            }
        }
        return out;
    }
};

}  // namespace

std::string write_pstats(const std::vector<FunctionStats>& stats) {
    std::vector<Label> labels;
    labels.reserve(stats.size());
    std::map<Label, Entry> entries;
    for (const FunctionStats& f : stats) {
        labels.emplace_back(f.file, f.line, f.label());
        add(entries[labels.back()].counts, f.counts);  // rows sharing a label are one entry
    }
    for (std::size_t i = 0; i < stats.size(); ++i) {
        for (const CalleeStats& c : stats[i].callees) {
            if (c.callee < stats.size()) add(entries[labels[c.callee]].callers[labels[i]], c.counts);
        }
    }
    std::string out;
    MarshalWriter w{out};
    w.byte('{');
    for (const auto& [label, entry] : entries) {
        w.label(label);
        w.tuple(5);
        w.integer(entry.counts.primitive_calls);
        w.integer(entry.counts.ncalls);
        w.real(entry.counts.tottime);
        w.real(entry.counts.cumtime);
        w.byte('{');
        for (const auto& [caller, counts] : entry.callers) {
            w.label(caller);
            w.caller_counts(counts);
        }
        w.byte('0');  // TYPE_NULL ends a dict
    }
    w.byte('0');
    return out;
}

}  // namespace ringprof
