// The fast path for the common trace event: one flat object whose keys are plain ASCII and whose
// values are plain strings, numbers and literals, with args an object of plain strings and
// numbers (or null), keys in any order. It reads the text once, straight into the fields, where
// simdjson's On-Demand walk of such an event (and our handling of each field it hands back) was
// about a quarter of a merge's CPU time. This is the measured case where simdjson could not serve:
// on bench_merge's input, 2.11 G -> 1.44 G instructions (callgrind), 222 -> 172 ms of CPU (perf
// stat), 1.2x-1.3x less wall time in interleaved runs.
//
// It is strict: whenever it is not sure (an escape, a byte outside printable ASCII in a string,
// nesting, an integer of more than 18 digits, -0, a number out of range, any syntax it does not
// expect) it gives up and the caller parses the event with simdjson, which stays the authority
// for what is valid and for every message. For each event it accepts it fills ParsedEvent exactly
// as the simdjson path does (flat_event_test and fuzz_flat_event hold it to that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/parsed_event.hpp"

namespace ringprof::detail {

// `text` is one array element. True: `p` holds the event (p must be reset() before). False: not
// taken; `p` is then partly written and must be reset() before another parser fills it.
bool parse_flat_event(std::string_view text, ParsedEvent& p);
// The same on the object starting at `begin` ('{'), which need not end where the text does:
// returns the end of the object (past its '}') or nullptr when not taken.
const char* read_flat_event(const char* begin, const char* end, ParsedEvent& p);

// read_flat_event for the events of one file, which nearly all share one layout: the same members
// in the same order, written with the same spaces. The reader remembers the bytes around the last
// event's values (its keys, colons, commas and spaces) and which member each value is; an event
// whose bytes between its values are those is read by comparing them (32 at a time) and reading
// only the values, the same way read_flat_event reads them. Recognising each key and stepping over
// each separator were about half of read_flat_event's instructions (callgrind, bench_merge input).
// Any other event is read by read_flat_event, and its layout remembered instead. Same answers
// as read_flat_event, always (flat_event_test, fuzz_flat_event).
class FlatEventReader {
public:
    static constexpr std::size_t kGap = 32;   // longest run of bytes between two values remembered
    static constexpr unsigned kMembers = 16;  // most members an event may have to be remembered
    // As read_flat_event; kGap bytes past `end` must be readable (a stream buffer's padding).
    const char* read(const char* begin, const char* end, ParsedEvent& p);

private:
    struct Member {
        char gap[kGap];
        std::uint8_t gap_size;
        std::uint8_t field;
    };
    Member member_[kMembers] = {};  // compared beyond each gap only under a mask, but never unset
    char close_[kGap] = {};
    std::uint8_t close_size_ = 0;
    std::uint8_t members_ = 0;  // 0: no layout remembered
};

// Whether json.dumps prints the number read from `token` as `token` itself (tests check the rule).
bool python_number_text(std::string_view token, TraceNumber n);

}  // namespace ringprof::detail
