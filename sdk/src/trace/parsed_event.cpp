#include "trace/parsed_event.hpp"

#include <cmath>

namespace ringprof::detail {

void note_string_arg(ParsedEvent& p, std::string_view key, std::string_view value) {
    if (key == "name") {
        p.arg_name = value;
        p.has_arg_name = true;
    } else if (key == "thread_id") {
        p.thread_id = value;
        p.has_thread_id = true;
    } else if (key == "step_num") {
        p.has_step = parse_step(value, p.step);
    }
}

void note_number_arg(ParsedEvent& p, std::string_view key, TraceNumber value, std::string_view token) {
    if (key == "start_time_since_epoch_in_micros") {
        p.base = value;
        p.has_base = true;
    } else if (key == "thread_id") {
        p.thread_id = token;
        p.has_thread_id = true;
    } else if (key == "step_num") {
        // Python's int() of a float; one beyond int64 (the cast would be undefined) equals no
        // step a merge can be asked for, so it is no step.
        const double whole = value.is_float ? std::trunc(value.d) : 0.0;
        p.has_step = !value.is_float || (whole >= -9223372036854775808.0 && whole < 9223372036854775808.0);
        p.step = !value.is_float ? value.i : p.has_step ? static_cast<std::int64_t>(whole) : 0;
    } else if (key == "name") {
        p.arg_name = token;
        p.has_arg_name = true;
    }
}

bool parse_step(std::string_view s, std::int64_t& out) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
    bool neg = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        neg = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return false;
    // The magnitude in 64 unsigned bits, checked digit by digit: every int64 reads back, INT64_MIN
    // (whose magnitude no int64 holds) included; one beyond is no step (Python's int() would give
    // a number no ringprof step can have).
    constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (v > (kMaxMagnitude - digit) / 10) return false;
        v = v * 10 + digit;
    }
    if (!neg && v == kMaxMagnitude) return false;
    out = neg ? static_cast<std::int64_t>(~v + 1) : static_cast<std::int64_t>(v);
    return true;
}

}  // namespace ringprof::detail
