// A run of one file's kept events, already the merging thread's records (header included: the
// reader resolves each track's thread id itself, in the merge's shared tables), as a
// reader thread hands them to the merging thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "merge/chunk_pool.hpp"
#include "merge/text_buffer.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

struct EventBatch {
    // Where each record starts in the text, and its start time: the merging thread indexes the
    // records (RecordStore::add_record) without reading them. 16 bytes.
    struct Event {
    private:
        std::uint64_t start_bits_ = 0;  // the start's int64 or double
        std::uint32_t is_float_ = 0;

    public:
        // text[offset, ...): one whole record (RecordStore::put_header, then the head and tail
        // text), stored as it is (RecordStore::adopt). Offsets are below 4 GiB.
        std::uint32_t offset = 0;

        void set(TraceNumber start) {
            if (start.is_float)
                std::memcpy(&start_bits_, &start.d, sizeof start_bits_);
            else
                start_bits_ = static_cast<std::uint64_t>(start.i);
            is_float_ = start.is_float;
        }
        TraceNumber start() const {
            if (!is_float_) return TraceNumber::integer(static_cast<std::int64_t>(start_bits_));
            double d;
            std::memcpy(&d, &start_bits_, sizeof d);
            return TraceNumber::floating(d);
        }
    };
    static_assert(sizeof(Event) == 16, "see above");
    // The chunks a reader's batches are made of (chunk_pool.hpp says why): a batch is full when
    // either its text or its event array is; the text fills first for records over 32 bytes (a
    // 12-byte header, a quoted name, a duration and '}': nearly all real ones).
    struct Memory {
        ChunkPool text{256 * 1024};
        ChunkPool events{128 * 1024};  // 8,192 events: a text chunk of 32-byte records
    };
    static EventBatch in(Memory& memory) {
        EventBatch b;
        b.text.take_from(&memory.text);
        b.events = Events(ChunkAllocator<Event>(&memory.events));
        b.events.reserve(memory.events.chunk_bytes() / sizeof(Event));
        return b;
    }

    using Events = std::vector<Event, ChunkAllocator<Event>>;
    Events events;
    TextBuffer text;

    bool empty() const { return events.empty(); }
};

}  // namespace ringprof::detail
