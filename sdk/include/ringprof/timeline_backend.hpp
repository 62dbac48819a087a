// What a timeline backend gets beyond the plain Backend: thread names, gauge samples and the
// moments its output must be made durable. A plain Backend with wants_spans() still gets every
// span; deriving from TimelineBackend adds these calls. Every call comes from the writer thread
// (never a producer thread, never the drainer), in order, interleaved with on_spans.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ringprof/backend.hpp"

namespace ringprof {

// Counts a timeline should report, cumulative since the session started.
struct TimelineStatus {
    std::uint64_t dropped_spans = 0;   // spans refused because the writer fell behind
    std::uint64_t filtered_spans = 0;  // spans left out by the minimum duration / maximum depth
    std::uint64_t dropped_scopes = 0;  // scopes refused by full rings (absent from every output)
    std::uint64_t now_epoch_ns = 0;
};

// For writers of timeline files; the built-in ones use these and nothing else of the library.
// Wall-clock nanoseconds since the Unix epoch: the clock of Span::begin_ns, on_counter, on_idle
// and TimelineStatus::now_epoch_ns.
std::uint64_t wall_clock_ns();
// `s` as a JSON string literal, quotes included: control characters escaped and bytes that are
// not valid UTF-8 replaced by U+FFFD, as every ringprof output writes names.
void append_json_string(std::string& out, std::string_view s);

class TimelineBackend : public Backend {
public:
    bool wants_spans() const override { return true; }

    // Before the first span of thread `tid` in any batch, and again if the thread is renamed.
    virtual void on_thread_name(std::uint32_t tid, const std::string& name) {
        static_cast<void>(tid);
        static_cast<void>(name);
    }
    // A gauge sample (value at a moment, wall clock ns since the epoch).
    virtual void on_counter(const char* name, std::uint64_t epoch_ns, std::uint32_t tid, double value) {
        static_cast<void>(name);
        static_cast<void>(epoch_ns);
        static_cast<void>(tid);
        static_cast<void>(value);
    }
    // Every span drained so far has been delivered (flush(), the flush interval, session end):
    // make what was written readable by others now.
    virtual void on_timeline_flush(const TimelineStatus& status) { static_cast<void>(status); }
    // About every 100 ms while no spans arrive: time-based work such as rotating by age.
    virtual void on_idle(std::uint64_t now_epoch_ns) { static_cast<void>(now_epoch_ns); }
};

}  // namespace ringprof
