// The merged file's pids and tids, settled before a line of it is written. smdebug gives each
// phase a pid from its phase's range and we give each thread track a tid, both in the order the
// tracks first appear in the file; the file is in (start, seq) order, so that is the order of
// each track's earliest event. Readers note that event as they read (TrackFirst), and the file
// can then be written in slices on several threads, each knowing every track's numbers and
// whether one of its own events is the one that announces a track.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_number.hpp"

namespace ringprof::detail {

// A track's earliest event: in one file (seq is then the event's position in the file's kept
// events) or in the whole merge (the store's seq).
struct TrackFirst {
    std::uint32_t thread = 0;  // the merge's ids
    std::uint32_t phase = 0;
    TraceNumber start;
    std::uint64_t seq = 0;
};

class TrackNumbering {
public:
    static constexpr std::uint64_t kNoEvent = ~std::uint64_t{0};
    struct Track {
        std::uint64_t first_seq = kNoEvent;  // the event before which the track is announced
        // The metadata lines written just before that event (the phase's process_name and
        // process_sort_index when the track is its phase's first, then its thread_name), each
        // starting with ",\n" as every line does.
        std::string announce;
        std::uint32_t announce_lines = 0;
        std::string middle;  // `, "pid": P, "tid": T, "ph": "X", "ts": `: every X line of the track has it
    };

    TrackNumbering() = default;
    // `first`: one entry per track with events, with the store's seq, in any order; the names
    // are the merge's tables, indexed by the ids.
    TrackNumbering(std::vector<TrackFirst> first, const std::vector<std::string>& phase_names,
                   const std::vector<std::string>& thread_labels);

    const Track& operator[](std::uint32_t thread) const { return tracks_[thread]; }

private:
    std::vector<Track> tracks_;
};

}  // namespace ringprof::detail
