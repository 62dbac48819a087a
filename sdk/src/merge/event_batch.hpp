// A run of one file's kept events, already in the merged file's text, as a reader thread hands
// them to the merging thread. Tracks (phase + thread of one file's reading) are declared in the
// batch where they are first used and numbered 0, 1, 2... per reading, in declaration order.
#pragma once

#include <cstdint>
#include <cstring>
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
    // 24 bytes, so that a 128 KiB chunk of them matches a 256 KiB chunk of text: with 48-byte
    // entries the entries filled first and left half of each batch's text chunk unused, and
    // bench_merge's store took 29 slabs of fresh huge pages instead of 19 (1.06x the wall time).
    struct Event {
    private:
        static constexpr std::uint32_t kFloat = 1u << 31;  // in track_: the start is a double
        std::uint64_t start_bits_ = 0;                      // the start's int64 or double
        std::uint32_t track_ = 0;

    public:
        // text[offset, +RecordStore::kRecordHeader): room for the record header, left to the
        // merging thread; then head_size bytes: the quoted name; then tail_size: the line from the
        // duration's value on (the writer prints ts from the start, and the `"dur"` key). The
        // text is stored as it is (RecordStore::adopt). Sizes and offsets are below 4 GiB.
        std::uint32_t head_size = 0;
        std::uint32_t tail_size = 0;
        std::uint32_t offset = 0;

        void set(TraceNumber start, std::uint32_t track) {
            if (start.is_float) std::memcpy(&start_bits_, &start.d, sizeof start_bits_);
            else start_bits_ = static_cast<std::uint64_t>(start.i);
            track_ = track | (start.is_float ? kFloat : 0);
        }
        TraceNumber start() const {
            if ((track_ & kFloat) == 0) return TraceNumber::integer(static_cast<std::int64_t>(start_bits_));
            double d;
            std::memcpy(&d, &start_bits_, sizeof d);
            return TraceNumber::floating(d);
        }
        std::uint32_t track() const { return track_ & ~kFloat; }  // per-reading number, see above
    };
    static_assert(sizeof(Event) == 24, "see above");
    // The chunks a reader's batches are made of (chunk_pool.hpp says why): a batch is full when
    // either its text or its event array is.
    struct Memory {
        ChunkPool text{256 * 1024};
        ChunkPool events{128 * 1024};  // 5,461 events: a text chunk of 48-byte records
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
