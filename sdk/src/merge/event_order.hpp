// The order of the merged file's events, decided here and nowhere else. smdebug reads the files
// one after another in a fixed order and keeps, among events of equal start, the order it read
// them in. The merge reads files on several threads and stores them in whatever order they finish,
// so each event carries its place in smdebug's reading as one number, its seq: the file's rank in
// reading order in the high bits, the event's position among the file's kept events in the low
// ones. Events are then ordered by (start, seq), a total order: the store's sort, the merge of its
// spilled runs and the choice of each track's first event all call event_before, so they cannot
// disagree about which event comes first (when they did, metadata landed on the wrong event).
#pragma once

#include <cstdint>
#include <cstring>

#include "merge/trace_files.hpp"
#include "trace/trace_number.hpp"

namespace ringprof::detail {

// smdebug's reading order of files: by kind (SourceKind's order), then the end time in the name,
// then the path. A file's rank is its index in the files sorted by this.
bool reads_before(const TraceFile& a, const TraceFile& b);

// Up to 2^40 events per file; ranks up to 2^23 (the packed key keeps the seq's top bit).
constexpr unsigned kRankShift = 40;
inline std::uint64_t event_seq(std::uint64_t file_rank, std::uint64_t position) {
    return (file_rank << kRankShift) + position;
}

inline bool event_before(TraceNumber a, std::uint64_t seq_a, TraceNumber b, std::uint64_t seq_b) {
    const int c = compare(a, b);
    return c != 0 ? c < 0 : seq_a < seq_b;
}

// (start, seq) in 16 bytes, the start's 8 bytes with whether it is a float in seq's top bit, where
// a TraceNumber beside seq made 24: the store's index holds one per event (8 MB less index on
// bench_merge's 503,200 events, counted against the budget, and less to move when runs merge).
struct PackedEventKey {
    static constexpr std::uint64_t kFloat = std::uint64_t{1} << 63;
    std::uint64_t bits;
    std::uint64_t seq_flag;

    PackedEventKey() = default;
    PackedEventKey(TraceNumber start, std::uint64_t seq)
        : bits(start.is_float ? double_bits(start.d) : static_cast<std::uint64_t>(start.i)),
          seq_flag(seq | (start.is_float ? kFloat : 0)) {}
    static std::uint64_t double_bits(double d) {
        std::uint64_t b;
        std::memcpy(&b, &d, sizeof b);
        return b;
    }
    TraceNumber start() const {
        if ((seq_flag & kFloat) == 0) return TraceNumber::integer(static_cast<std::int64_t>(bits));
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return TraceNumber::floating(d);
    }
    std::uint64_t seq() const { return seq_flag & ~kFloat; }
};

// event_before on packed keys; two integer starts (nearly all) are compared without unpacking.
// Always inlined: GCC kept it a call, 19 instructions of which were the call (callgrind).
[[gnu::always_inline]] inline bool event_before(const PackedEventKey& a, const PackedEventKey& b) {
    if (((a.seq_flag | b.seq_flag) & PackedEventKey::kFloat) == 0) {
        const auto ia = static_cast<std::int64_t>(a.bits), ib = static_cast<std::int64_t>(b.bits);
        return ia != ib ? ia < ib : a.seq_flag < b.seq_flag;
    }
    return event_before(a.start(), a.seq(), b.start(), b.seq());
}

}  // namespace ringprof::detail
