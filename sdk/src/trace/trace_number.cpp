#include "trace/trace_number.hpp"

#include "json/grid_decimal.hpp"
#include "json/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace ringprof::detail {

int compare_mixed(TraceNumber a, TraceNumber b) {
    const long double x = a.exact();
    const long double y = b.exact();
    return (x > y) - (x < y);
}

void append_number(std::string& out, TraceNumber n) {
    if (n.is_float) {
        detail::append_python_float(out, n.d);
        return;
    }  // always finite here
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, n.i);
    out.append(buf, static_cast<std::size_t>(res.ptr - buf));  // (first, last) would go through replace()
}

namespace {
// Below 2^52 us (the year 2112) the grid units fit an int64; at zero the sign needs repr.
bool float_on_time_grid(TraceNumber n) {
    return n.is_float && n.d != 0 && std::fabs(n.d) < 0x1p52 && n.d * 1024 == std::trunc(n.d * 1024);
}
}  // namespace

void append_time(std::string& out, TraceNumber n, std::string_view repr) {
    if (!float_on_time_grid(n)) {
        if (!repr.empty()) {
            out.append(repr);
        } else {
            append_number(out, n);
        }
        return;
    }
    append_grid_decimal(out, static_cast<std::int64_t>(n.d * 1024), /*point_zero=*/true);  // exact: a power of two
}

TraceNumber span_end(TraceNumber base, TraceNumber ts, TraceNumber dur) {
    std::int64_t partial = 0, sum = 0;
    if (!base.is_float && !ts.is_float && !dur.is_float && !__builtin_add_overflow(base.i, ts.i, &partial) &&
        !__builtin_add_overflow(partial, dur.i, &sum)) {
        return TraceNumber::integer(sum);
    }
    // long double's 64-bit mantissa holds a microsecond base and a 2^-10 us grid exactly; where
    // it cannot, its rounding is still monotonic, which is what nesting needs.
    return TraceNumber::floating(static_cast<double>(base.exact() + ts.exact() + dur.exact()));
}

TraceNumber duration_landing_on(TraceNumber start, TraceNumber end) {
    const double s = start.as_double(), e = end.as_double();
    // e - s is exact when the two are within a factor of two (Sterbenz), as a span far from zero
    // is; nearer zero the nearest neighbours of the rounded difference hold the answer.
    double d = e - s;
    for (int step = 0; step < 4 && s + d != e; ++step) d = std::nextafter(d, s + d < e ? HUGE_VAL : -HUGE_VAL);
    while (s + d > e) d = std::nextafter(d, -HUGE_VAL);  // never past the end, whatever the above found
    return TraceNumber::floating(d);
}

std::int64_t round_half_even(TraceNumber n) {
    if (!n.is_float) return n.i;
    if (!std::isfinite(n.d)) return 0;
    return static_cast<std::int64_t>(std::nearbyint(n.d));
}

}  // namespace ringprof::detail
