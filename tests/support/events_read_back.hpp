// What the trace reader delivered, event by event, as comparable text: tests that read one file
// in different ways (buffer sizes, fast path or simdjson) check that they saw the same events.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::testing {

// A number with its kind, exactly (a float in hex), so a float never equals the integer it rounds to.
inline std::string show(detail::TraceNumber n) {
    char buf[64];
    if (n.is_float)
        std::snprintf(buf, sizeof buf, "f%a", n.d);
    else
        std::snprintf(buf, sizeof buf, "i%lld", static_cast<long long>(n.i));
    return buf;
}

struct EventSeen {
    std::string name, phase, label, args;
    std::string start, dur;
    bool operator==(const EventSeen& o) const {
        return name == o.name && phase == o.phase && label == o.label && args == o.args && start == o.start &&
               dur == o.dur;
    }
};

class EventRecorder final : public detail::EventSink {
public:
    std::vector<EventSeen> seen;
    void on_event(const detail::ReadEvent& e) override {
        seen.push_back({std::string(e.name), std::string(e.phase), std::string(e.thread_label),
                        std::string(e.args_json), show(e.start), show(e.dur)});
    }
};

// Every event of `text`, read through a buffer of `chunk` bytes.
inline std::vector<EventSeen> read_all_events(const std::string& text, std::size_t chunk) {
    auto src = detail::memory_source(text);
    detail::ReaderSetup setup;
    setup.node_id = "n";
    setup.chunk_bytes = chunk;
    EventRecorder r;
    detail::read_trace_events(*src, setup, r);
    return r.seen;
}

}  // namespace ringprof::testing
