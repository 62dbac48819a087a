// A run of one file's kept events, already in the merged file's text, as a reader thread hands
// them to the merging thread. Tracks (phase + thread of one file's reading) are declared in the
// batch where they are first used and numbered 0, 1, 2... per reading, in declaration order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/chunk_pool.hpp"
#include "merge/text_buffer.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

struct EventBatch {
    struct Track {
        std::string phase, thread_key, label;
    };
    struct Event {
        TraceNumber start;
        std::uint32_t track = 0;      // per-reading number, see above
        // text[offset, +RecordStore::kRecordHeader): room for the record header, left to the
        // merging thread; then head_size bytes: the quoted name; then tail_size: the line from the
        // duration's value on (the writer prints ts from `start`, and the `"dur"` key). The text
        // is stored as it is (RecordStore::adopt).
        std::uint32_t head_size = 0;
        std::uint32_t tail_size = 0;
        std::size_t offset = 0;
    };
    // The chunks a reader's batches are made of (chunk_pool.hpp says why): a batch is full when
    // either its text or its event array is.
    struct Memory {
        ChunkPool text{256 * 1024};
        ChunkPool events{128 * 1024};  // 2,730 events; bench_merge's batches hold about 2,400
    };
    static EventBatch in(Memory& memory) {
        EventBatch b;
        b.text.take_from(&memory.text);
        b.events = Events(ChunkAllocator<Event>(&memory.events));
        b.events.reserve(memory.events.chunk_bytes() / sizeof(Event));
        return b;
    }

    std::vector<Track> new_tracks;
    using Events = std::vector<Event, ChunkAllocator<Event>>;
    Events events;
    TextBuffer text;

    bool empty() const { return events.empty() && new_tracks.empty(); }
};

}  // namespace ringprof::detail
