#include "stats_state.hpp"

namespace ringprof::detail {

void StatsState::fill(Snapshot& snapshot, const std::vector<ThreadTrack*>& live, const ClockCalibration& clock) const {
    StatsAccumulator all = retired_;
    for (const ThreadTrack* track : live) all.add_tree(track->tree, signatures_);
    snapshot.stats = all.to_stats(signatures_, clock.ns_per_tick());
}

std::vector<FunctionStats> StatsState::of_thread(const ThreadTrack& track, const ClockCalibration& clock) const {
    StatsAccumulator one;
    one.add_tree(track.tree, signatures_);
    return one.to_stats(signatures_, clock.ns_per_tick());
}

}  // namespace ringprof::detail
