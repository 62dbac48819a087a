// Text pieces shared by the timeline backends: integers and trace times written without
// locale or printf overhead (millions of events per second go through here), and a cache of
// escaped names keyed by the name's pointer (names are string literals or interned strings).
// Besides ringprof/timeline_backend.hpp, it uses only the grid's digits (json/grid_decimal.hpp),
// which `ringprof merge` prints with too.
// std::to_chars rather than fmt: writing the trace's span line took fmt 3.2x the time with a
// runtime format string and 2.2x with FMT_COMPILE into this std::string; only FMT_COMPILE into
// an fmt::memory_buffer kept pace (1.04x; bench_timeline BM_SpanLine*, load ~30), and that would
// change every writer's buffer and the JSON string helper's signature.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "json/grid_decimal.hpp"
#include "ringprof/timeline_backend.hpp"

namespace ringprof::backends {

inline void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// Trace times (Chrome's "ts" and "dur", in microseconds) on a binary grid of 2^-10 us.
//
// Problem: consumers (Chrome DevTools, Perfetto's JSON import, Python) read ts and dur as
// doubles and compute a span's end as ts + dur. Written as exact decimal nanoseconds ("0.1",
// "0.2"), neither is a double, and the rounded sum can land past the next span's ts or the
// parent's end (0.1 + 0.2 > 0.3): the span "cannot nest" and is left off its track.
// Mechanism: a time is written as k / 1024 us, k an integer. Such a number's decimal text is
// exact (at most 10 decimals), it parses to exactly that double, and ts + dur of two of them is
// exact too, so the consumer's end is the end written: the nesting that holds in exact decimals
// (which the one clock guarantees) holds in doubles by construction. k = floor(ns * 1.024) is
// strictly increasing in ns (the grid, 0.9765625 ns, is finer than a nanosecond), so no two
// times merge and ns = ceil(k / 1.024) recovers the nanosecond.
// Bound: exact while |k| < 2^53, i.e. within 2^43 us (~101 days) of the run's start.
inline std::int64_t trace_grid_units(std::int64_t ns) {
    std::int64_t q = ns / 125;
    std::int64_t r = ns % 125;
    if (r < 0) {  // floor, also before the run's start
        r += 125;
        --q;
    }
    return q * 128 + r * 128 / 125;
}

// `units` of 2^-10 us as their exact decimal ("12", "0.0009765625", "-1.5").
inline void append_grid_us(std::string& out, std::int64_t units) { detail::append_grid_decimal(out, units); }

// A time `ns` after the run's start, as a trace's "ts".
inline void append_trace_ts(std::string& out, std::int64_t ns) { append_grid_us(out, trace_grid_units(ns)); }
// The "dur" of a span from `begin_ns` to `end_ns` after the run's start: the difference of the
// two grid times, so that ts + dur is the end's grid time exactly (see above).
inline void append_trace_dur(std::string& out, std::int64_t begin_ns, std::int64_t end_ns) {
    append_grid_us(out, trace_grid_units(end_ns) - trace_grid_units(begin_ns));
}

class NameCache {
public:
    // The JSON string literal (quotes included) for `name`.
    const std::string& quoted(const char* name) {
        auto it = cache_.find(name);
        if (it != cache_.end()) return it->second;
        std::string q;
        append_json_string(q, name != nullptr ? std::string_view(name) : std::string_view());
        return cache_.emplace(name, std::move(q)).first->second;
    }

private:
    std::unordered_map<const char*, std::string> cache_;
};

}  // namespace ringprof::backends
