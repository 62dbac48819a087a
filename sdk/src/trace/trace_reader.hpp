// Turns one trace file's events into complete events on absolute time, the way smdebug's trace
// parser reads them: phases from process_name, threads from thread_name, the time base from
// start_time_since_epoch_in_micros, B/E pairs joined into one event. Only M, X, B and E matter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/byte_source.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

struct ReadEvent {
    TraceNumber start;  // absolute µs
    TraceNumber dur;
    // Where the span ends, rounded once from the file's exact numbers (span_end). Python's
    // start + dur can differ from it by an ulp: a writer that must nest uses this.
    TraceNumber end;
    std::string_view name;          // unescaped
    std::string_view phase;         // process_name of its pid, "Unknown" when undeclared
    std::string_view thread_key;    // args.thread_id, else tid, else "0"
    std::string_view thread_label;  // "<node>_<thread_name or key>"
    std::string_view pid;           // as written (strings unquoted)
    std::string_view thread_name;   // from a thread_name M event, empty when undeclared
    std::string_view args_json;     // Python-style text, empty when there are no args
    bool has_step = false;  // args.step_num was there and read, as any int64
    std::int64_t step = 0;
    // The step the event ran in, for the analyses (steps, flame): its step_num, except -1, which
    // smdebug writes for "no step" (docs/steps.md).
    bool in_step() const { return has_step && step != -1; }
    // The name is known to need no escaping in JSON (printable ASCII without '"' or '\\'), as
    // the fast path checked while reading it; false says only that it was not checked.
    bool name_plain = false;
    // `dur` as Python prints it, when the reader already has that text (else empty: print `dur`).
    std::string_view dur_text;
    // Within one reading, events with equal `track` have equal phase, pid, thread_key,
    // thread_label and thread_name, so a sink can resolve those once per track instead of once
    // per event. Ids are not reused within a reading.
    std::uint64_t track = 0;
};

class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void on_event(const ReadEvent& e) = 0;
};

struct ReaderSetup {
    std::string node_id;
    bool has_base = false;  // base known from outside (TF marker, or a second reading)
    TraceNumber base;
    // Read size; tiny values exercise chunk boundaries. 128 KiB stays in the core's L2 cache
    // between read() writing it and the parser reading it: against 1 MiB, bench_merge's input
    // took 4% less CPU time (a tenth less in the kernel) and 2% less wall time (median of 40
    // interleaved pairs).
    std::size_t chunk_bytes = 128 << 10;
    // A B without its E is left out (smdebug); viewers instead draw it to the last event of its
    // thread, and so does the flame graph when this is set.
    bool close_open_spans = false;
};

struct ReadOutcome {
    std::uint64_t events = 0;        // delivered to the sink
    std::uint64_t dropped = 0;       // malformed events left out
    std::vector<std::string> notes;  // event-level problems, one line each
    // Set when the base turned up only after the events (an "otherData" member written after
    // traceEvents): the caller should discard this reading and read again with this base.
    bool reread_with_base = false;
    TraceNumber late_base;
};

// Throws InputError on unreadable or malformed input (the file must then be left out whole).
// Each thread reuses one parser from call to call, so a sink must not call it again from inside
// on_event (no sink does).
ReadOutcome read_trace_events(ByteSource& src, const ReaderSetup& setup, EventSink& sink);

}  // namespace ringprof::detail
