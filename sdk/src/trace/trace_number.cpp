#include "trace/trace_number.hpp"

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

std::int64_t round_half_even(TraceNumber n) {
    if (!n.is_float) return n.i;
    if (!std::isfinite(n.d)) return 0;
    return static_cast<std::int64_t>(std::nearbyint(n.d));
}

}  // namespace ringprof::detail
