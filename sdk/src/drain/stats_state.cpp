#include "stats_state.hpp"

namespace ringprof::detail {

void StatsState::fill(Snapshot& snapshot, const std::vector<ThreadTrack*>& live, const ClockCalibration& clock) const {
    StatsAccumulator all = retired_;
    for (const ThreadTrack* track : live) all.add_tree(track->tree, signatures_);
    snapshot.stats = all.to_stats(signatures_, clock.ns_per_tick());
}

}  // namespace ringprof::detail
