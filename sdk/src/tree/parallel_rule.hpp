// When a tree node is parallel (ML-Agents' is_parallel: its time was spent on several threads or
// processes at once, so its children's totals may add up to more than its own). The live
// aggregator, the timers tree's merge and the flame graph's merge of thread trees all decide it
// here, so a node is parallel in one output exactly when it is in the others.
#pragma once

#include <cstdint>

namespace ringprof::detail {

// Two or more threads feeding one node make it parallel.
constexpr std::uint32_t kParallelThreads = 2;

// A node fed by `threads` distinct threads, `marked` parallel already by a merge.
inline bool parallel_with_threads(bool marked, std::uint32_t threads) { return marked || threads >= kParallelThreads; }

// A node after a tree's node is merged into it: parallel if either was, or if the merge itself is
// parallel (a worker process's tree grafted beside others').
inline bool parallel_after_merge(bool mine, bool theirs, bool parallel_merge) {
    return mine || theirs || parallel_merge;
}

}  // namespace ringprof::detail
