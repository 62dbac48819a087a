// The fields of one trace event that the reader uses, as either event parser fills them (the
// simdjson path in trace_reader.cpp, the flat-event fast path in flat_event.cpp). The rules both
// apply to args live here, so the two paths cannot drift apart on what an arg means.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "trace/trace_number.hpp"

namespace ringprof::detail {

// Everything but the args text, apart so that reset() is one plain assignment: moving the args
// string aside and back around a whole new event was 2% of a merge's instructions.
struct ParsedFields {
    std::string_view ph, name, pid, tid;
    bool has_ph = false, has_name = false, name_ok = false, has_pid = false, has_tid = false;
    bool has_ts = false, has_dur = false, bad_field = false;
    TraceNumber ts, dur;
    bool args_bad = false;
    std::string_view arg_name, thread_id;
    bool has_arg_name = false, has_thread_id = false, has_base = false, has_step = false;
    TraceNumber base;
    std::int64_t step = 0;
    bool name_plain = false;  // set by the fast path: `name` is printable ASCII without '"' or '\\'
    // Set by the fast path when dur's text as written is exactly how Python prints the number (see
    // python_number_text in flat_event.cpp), so it can be copied instead of printed again.
    std::string_view dur_text;
};

struct ParsedEvent : ParsedFields {
    std::string args;  // Python text of a non-empty args object

    // Keeps `args`' capacity: a fresh string per event was an allocation per event. The fields
    // are zeroed by libc's memset (a few vector stores): assigning ParsedFields{} compiled to
    // `rep stos`, whose start-up cost made this 5% of a merge's CPU time (perf, bench_merge input).
    // The size goes through an empty asm so that the compiler cannot inline the memset back.
    void reset() {
        static_assert(std::is_trivially_copyable_v<ParsedFields>, "zeroed as bytes");
        std::size_t size = sizeof(ParsedFields);
        asm("" : "+r"(size));
        std::memset(static_cast<void*>(static_cast<ParsedFields*>(this)), 0,
                    size);  // all-zero bytes are ParsedFields{}
        args.clear();
    }
};

// 2^62 µs (146,000 years): far beyond any clock, and sums of two such times still fit an int64.
// A ts or dur beyond it makes the event malformed (1e300 named the output "-9223372036854775808_...").
inline bool time_in_range(TraceNumber n) {
    const double d = n.as_double();
    return d < 4611686018427387904.0 && d > -4611686018427387904.0;
}

// What a string / number member of args means besides its text: the thread id, the step, the
// time base, the name of a process or thread. `token` is the number as written.
void note_string_arg(ParsedEvent& p, std::string_view key, std::string_view value);
void note_number_arg(ParsedEvent& p, std::string_view key, TraceNumber value, std::string_view token);

// Python's int() on a step_num string: optional spaces and sign around decimal digits.
bool parse_step(std::string_view s, std::int64_t& out);

// The simdjson path on one element's text alone (copied into a padded buffer): false when the
// text is not valid JSON; `is_object` says whether it was an event at all. For the tests and
// fuzzers that hold the fast path to it. p's strings stay valid until the next call on the thread.
bool parse_event_with_simdjson(std::string_view text, ParsedEvent& p, bool& is_object);

}  // namespace ringprof::detail
