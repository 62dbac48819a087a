// Holds the flat-event fast path to the simdjson path on arbitrary bytes: whatever text the fast
// path takes, simdjson must read as an object with exactly the same fields, and a duration text it
// hands the writer to copy must be how the number prints; and the input's lines, read one after
// another by one FlatEventReader, must each come out as read_flat_event reads it. A difference
// aborts, and libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "trace/flat_event.hpp"
#include "trace/parsed_event.hpp"

namespace {

using ringprof::detail::ParsedEvent;
using ringprof::detail::TraceNumber;

bool same(TraceNumber a, TraceNumber b) {
    return a.is_float == b.is_float && (a.is_float ? std::memcmp(&a.d, &b.d, sizeof a.d) == 0 : a.i == b.i);
}

bool same(const ParsedEvent& a, const ParsedEvent& b) {
    return a.ph == b.ph && a.name == b.name && a.pid == b.pid && a.tid == b.tid && a.has_ph == b.has_ph &&
           a.has_name == b.has_name && a.name_ok == b.name_ok && a.has_pid == b.has_pid && a.has_tid == b.has_tid &&
           a.has_ts == b.has_ts && a.has_dur == b.has_dur && a.bad_field == b.bad_field && same(a.ts, b.ts) &&
           same(a.dur, b.dur) && a.args == b.args && a.args_bad == b.args_bad && a.arg_name == b.arg_name &&
           a.thread_id == b.thread_id && a.has_arg_name == b.has_arg_name && a.has_thread_id == b.has_thread_id &&
           a.has_base == b.has_base && a.has_step == b.has_step && same(a.base, b.base) && a.step == b.step;
}

// The input's lines as the events of one file, read by one FlatEventReader (from a padded copy,
// as from a stream buffer): each must come out as read_flat_event reads it.
void check_layout_reader(std::string_view text) {
    ringprof::detail::FlatEventReader reader;
    std::string padded;
    for (std::size_t at = 0; at <= text.size();) {
        std::size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view line = text.substr(at, eol - at);
        padded.assign(line.data(), line.size());
        padded.append(ringprof::detail::FlatEventReader::kGap, '}');
        const char* begin = padded.data();
        ParsedEvent a, b;
        const char* by_layout = reader.read(begin, begin + line.size(), a);
        const char* afresh = ringprof::detail::read_flat_event(begin, begin + line.size(), b);
        if (by_layout != afresh || (afresh && !same(a, b))) {
            std::fprintf(stderr, "FlatEventReader read a line differently from read_flat_event: %.*s\n",
                         static_cast<int>(line.size()), line.data());
            std::abort();
        }
        at = eol + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_layout_reader(text);
    ParsedEvent fast;
    if (!ringprof::detail::parse_flat_event(text, fast)) return 0;
    ParsedEvent reference;
    bool is_object = false;
    if (!ringprof::detail::parse_event_with_simdjson(text, reference, is_object) || !is_object) {
        std::fprintf(stderr, "the fast path took an event simdjson refuses: %.*s\n", static_cast<int>(size),
                     text.data());
        std::abort();
    }
    if (!fast.dur_text.empty()) {  // the text the writer copies must be how the number prints
        std::string printed;
        ringprof::detail::append_number(printed, fast.dur);
        if (printed != fast.dur_text) {
            std::fprintf(stderr, "dur_text %.*s but the number prints as %s\n", static_cast<int>(fast.dur_text.size()),
                         fast.dur_text.data(), printed.c_str());
            std::abort();
        }
    }
    if (!same(fast, reference)) {
        std::fprintf(stderr, "the fast path read an event differently from simdjson: %.*s\n", static_cast<int>(size),
                     text.data());
        std::abort();
    }
    return 0;
}
