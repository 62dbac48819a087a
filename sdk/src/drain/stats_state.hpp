// Everything the aggregator keeps for flat statistics, behind three calls so the aggregator
// stays unaware of how signatures and rows work: intern a signature while decoding, fold an
// exiting thread's tree, fill a snapshot.
#pragma once

#include <cstdint>
#include <vector>

#include "drain/clock_calibration.hpp"
#include "drain/thread_track.hpp"
#include "ringprof/backend.hpp"
#include "signature_table.hpp"
#include "stats_accumulator.hpp"

namespace ringprof::detail {

class StatsState {
public:
    static std::uint64_t record_length(const SignatureSite& site) { return SignatureTable::record_length(site); }
    std::uint64_t intern_signature(const SignatureSite& site, const Ring& ring, std::uint64_t index) {
        return signatures_.intern(site, ring, index);
    }

    void retire(const CallTree& tree) { retired_.add_tree(tree, signatures_); }
    // Forgets exited threads' rows (live threads' trees are reset by their owner).
    void reset() { retired_ = StatsAccumulator{}; }

    void fill(Snapshot& snapshot, const std::vector<ThreadTrack*>& live, const ClockCalibration& clock) const;
    // The rows of one live thread alone (a Python Profile's window on that thread).
    std::vector<FunctionStats> of_thread(const ThreadTrack& track, const ClockCalibration& clock) const;

private:
    SignatureTable signatures_;
    StatsAccumulator retired_;
};

}  // namespace ringprof::detail
