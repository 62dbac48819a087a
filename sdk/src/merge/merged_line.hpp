// One line of the merged file, as smdebug's json.dumps writes it: an X line
//   ,\n{"name": <name>, "pid": P, "tid": T, "ph": "X", "ts": <ts>, "dur": <dur>[, "args": <args>]}
// or, from system metrics (system_metric_events.hpp), a counter or an instant
//   ,\n{"name": <name>, "pid": P, "tid": 0, "ph": "C", "ts": <ts>, "args": <args>}
//   ,\n{"name": <name>, "pid": P, "tid": 0, "ph": "i", "ts": <ts>, "s": "t", "args": <args>}
// (the first line of the file opens the array, "[\n" for ",\n"). Its pieces are made at three
// moments: the reader stores the record's head (the name as JSON) and tail (from the duration's
// value, or the args of a counter or instant, to the closing brace) as it reads; TrackNumbering
// makes each track's middle (pid, tid, ph and the ts key) and what follows ts up to the tail
// once every track is known; the writer prints ts from the stored start. Each
// piece is made here, and put_line puts them together both to size a line and to write it, so the
// writer's slices cannot be measured differently from how they are written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "merge/decimal_text.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail::merged_line {

constexpr std::string_view kStart = ",\n{\"name\": ";
constexpr std::string_view kDur = ", \"dur\": ";
constexpr std::string_view kArgs = ", \"args\": ";
constexpr std::size_t kLongestNumber = 32;  // an int64, or a float as repr prints it

// The record's head for a name that needs no escaping: the name in quotes.
inline std::size_t plain_head_size(std::string_view name) { return name.size() + 2; }
inline char* write_plain_head(char* at, std::string_view name) {
    *at = '"';
    std::memcpy(at + 1, name.data(), name.size());
    at[name.size() + 1] = '"';
    return at + name.size() + 2;
}

// The record's tail: the duration's text as Python prints it, the args' JSON text if any, "}".
inline std::size_t tail_size(std::string_view dur, std::string_view args_json) {
    return dur.size() + (args_json.empty() ? 0 : kArgs.size() + args_json.size()) + 1;
}
inline char* write_tail(char* at, std::string_view dur, std::string_view args_json) {
    std::memcpy(at, dur.data(), dur.size());
    at += dur.size();
    if (!args_json.empty()) {
        std::memcpy(at, kArgs.data(), kArgs.size());
        std::memcpy(at + kArgs.size(), args_json.data(), args_json.size());
        at += kArgs.size() + args_json.size();
    }
    *at = '}';
    return at + 1;
}

// A track's middle: every line of the track has it. `ph`: "X", "C" or "i".
inline std::string middle(std::int64_t pid, std::int64_t tid, const char* ph = "X") {
    return ", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ph\": \"" + ph +
           "\", \"ts\": ";
}
// What follows ts in each kind of line, up to the record's tail.
constexpr std::string_view kCounterAfterTs = kArgs;
constexpr std::string_view kInstantAfterTs = ", \"s\": \"t\", \"args\": ";

struct Line {
    std::string_view announce;  // metadata lines written just before, each starting with ",\n"; often empty
    std::string_view head, middle;
    TraceNumber start;
    std::string_view after_ts;  // kDur for X lines
    std::string_view tail;
};

// The line in the order it is written: `out` counts its bytes (LineSize) or copies them.
template <class Out>
inline void put_line(Out& out, const Line& l) {
    if (!l.announce.empty()) out.text(l.announce);  // rare: a call to memcpy saved on every other line
    out.text(kStart);
    out.text(l.head);
    out.text(l.middle);
    out.ts(l.start);
    out.text(l.after_ts);
    out.text(l.tail);
}

// The bytes put_line writes, without writing them.
struct LineSize {
    std::size_t bytes = 0;
    void text(std::string_view s) { bytes += s.size(); }
    void ts(TraceNumber t) {
        if (!t.is_float) {
            bytes += decimal_length(t.i);
        } else {
            std::string repr;
            append_time(repr, t);
            bytes += repr.size();
        }
    }
};

// Room enough for the line however its start prints: reserved before it is written.
inline std::size_t room_for(const Line& l) {
    return l.announce.size() + kStart.size() + l.head.size() + l.middle.size() + kLongestNumber + l.after_ts.size() +
           l.tail.size();
}

}  // namespace ringprof::detail::merged_line
