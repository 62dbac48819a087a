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

#include "merge/merged_line.hpp"
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
        std::string middle;  // `, "pid": P, "tid": T, "ph": "X", "ts": `: every line of the track has it
        std::string_view after_ts = merged_line::kDur;  // what follows ts (merged_line.hpp)
    };
    // What a track holds: X events of a thread, or the system metrics' counters or instants (no
    // thread: tid 0, no thread_name line, as smdebug writes them).
    enum class Kind : char { thread_events, counters, instants };

    TrackNumbering() = default;
    // `first`: one entry per track with events, with the store's seq, in any order; the names
    // are the merge's tables, indexed by the ids.
    // `kinds`: each track's, by id; shorter (or empty) means thread_events for the rest.
    TrackNumbering(std::vector<TrackFirst> first, const std::vector<std::string>& phase_names,
                   const std::vector<std::string>& thread_labels, const std::vector<Kind>& kinds = {});

    const Track& operator[](std::uint32_t thread) const { return tracks_[thread]; }

private:
    std::vector<Track> tracks_;
};

}  // namespace ringprof::detail
