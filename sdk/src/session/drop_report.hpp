// Lost data is never silent: the first snapshot written with drops (a flush) and the final one
// (exit) print one stderr line with the counts and the setting that would have avoided them;
// the per-thread counts go into the metadata of every output.
#pragma once

#include <cstdint>

#include "ringprof/backend.hpp"
#include "ringprof/config.hpp"

namespace ringprof::detail {

// dropped_scopes_by_thread, ring_waits / ring_wait_ns and ring_growths / ring_growth_ns (total
// and by thread) in the metadata.
void add_ring_metadata(const Snapshot& snapshot, TimerTree& tree);

class DropReport {
public:
    // Called for every snapshot written; prints at most once before the final one.
    void on_snapshot(const Snapshot& snapshot, std::uint64_t timeline_dropped_spans, OnFull policy, bool final);

private:
    bool said_ = false;
};

}  // namespace ringprof::detail
