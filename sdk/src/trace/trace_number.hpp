// A timestamp or duration as smdebug's Python sees it: an exact integer when the JSON held one,
// a binary64 otherwise. Keeping the two apart matters because the merged file must print the same
// numbers (integers stay integers, floats print like Python's repr) and order events exactly as
// Python's mixed int/float comparisons do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ringprof::detail {

// 16 bytes, the value's two readings sharing a word: small enough to be passed and returned in
// two registers. At 24 bytes it went through memory, written as a flag and a value and then read
// back as one 16-byte word, a load the store buffer cannot forward; those stalls were 80% of the
// merging thread's loop over a batch and 15% of the fast reader's time (perf).
struct TraceNumber {
    bool is_float = false;
    union {
        std::int64_t i = 0;  // when !is_float
        double d;            // when is_float
    };

    static TraceNumber integer(std::int64_t v) {
        TraceNumber n;
        n.i = v;
        return n;
    }
    static TraceNumber floating(double v) {
        TraceNumber n;
        n.is_float = true;
        n.d = v;
        return n;
    }

    double as_double() const { return is_float ? d : static_cast<double>(i); }
    // long double holds every int64 and every double exactly on the platforms we build for,
    // so mixed comparisons are exact, as in Python.
    long double exact() const { return is_float ? static_cast<long double>(d) : static_cast<long double>(i); }
};
static_assert(sizeof(TraceNumber) == 16, "passed in registers");

// Python semantics: int+int stays int (falls back to float only on int64 overflow), else float.
// Inline: every event's start and end are sums, and the call was 2% of a merge's instructions.
inline TraceNumber add(TraceNumber a, TraceNumber b) {
    std::int64_t r = 0;
    if (!a.is_float && !b.is_float && !__builtin_add_overflow(a.i, b.i, &r)) return TraceNumber::integer(r);
    return TraceNumber::floating(a.as_double() + b.as_double());
}
inline TraceNumber subtract(TraceNumber a, TraceNumber b) {
    std::int64_t r = 0;
    if (!a.is_float && !b.is_float && !__builtin_sub_overflow(a.i, b.i, &r)) return TraceNumber::integer(r);
    return TraceNumber::floating(a.as_double() - b.as_double());
}
int compare_mixed(TraceNumber a, TraceNumber b);

// A span's end, base + ts + dur, from its exact value rounded once. Python rounds base + ts to a
// double first and then adds dur, so two spans that end together in the file can end an ulp apart
// (at 1.7e15 us the ulp is 0.25 us) and a child can end past its parent. One rounding is
// monotonic: spans that nest in the file nest here. Integers stay integers while they fit.
TraceNumber span_end(TraceNumber base, TraceNumber ts, TraceNumber dur);
// Whether start + dur is `end` both as consumers add them (in doubles) and exactly.
inline bool lands_on(TraceNumber start, TraceNumber dur, TraceNumber end) {
    return start.as_double() + dur.as_double() == end.as_double() && start.exact() + dur.exact() == end.exact();
}
// The duration that lands on `end` from `start` (end >= start) as consumers add them. Where the
// times print exactly (append_time), exactly too.
TraceNumber duration_landing_on(TraceNumber start, TraceNumber end);
// -1, 0, 1. Inline: sorting merged events calls it about 20 times per event.
inline int compare(TraceNumber a, TraceNumber b) {
    if (!a.is_float && !b.is_float) return (a.i > b.i) - (a.i < b.i);
    return compare_mixed(a, b);
}

// Appends the number as Python's json.dumps would print it (repr for floats: 1e-06, 12.0).
// Readers keep only finite numbers, so Python's NaN/Infinity never need printing.
void append_number(std::string& out, TraceNumber n);
// A merged file's time (ts, or a dur the merge computed): as append_number, except a float on
// the 2^-10 us grid (every time in a ringprof trace, and every double from 2^43 us on, that is,
// every time on an epoch base) prints as its exact decimal: 1780000000123458.25 where Python's
// repr writes 1780000000123458.2. Then the text is the double consumers read, and spans that nest
// as doubles nest in exact decimals too. `repr`, when not empty, is Python's text of `n`.
void append_time(std::string& out, TraceNumber n, std::string_view repr = {});

// Python's round() to an integer (ties to even), for the output file name.
std::int64_t round_half_even(TraceNumber n);

}  // namespace ringprof::detail
