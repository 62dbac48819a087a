// Text pieces shared by the timeline backends: integers and microseconds written without
// locale or printf overhead (millions of events per second go through here), and a cache of
// escaped names keyed by the name's pointer (names are string literals or interned strings).
// Like the timeline backends, it uses only what ringprof/timeline_backend.hpp offers any backend.
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

#include "ringprof/timeline_backend.hpp"

namespace ringprof::backends {

inline void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// Nanoseconds as microseconds with three decimals ("12.345", "-0.002"): exact, no rounding.
inline void append_us(std::string& out, std::int64_t ns) {
    if (ns < 0) {
        out.push_back('-');
        ns = -ns;
    }
    append_int(out, ns / 1000);
    const auto frac = static_cast<int>(ns % 1000);
    const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                            static_cast<char>('0' + frac % 10)};
    out.append(digits, 4);
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
