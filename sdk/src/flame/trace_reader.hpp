// Turns the X and B/E events of a Chrome trace or pythontimeline into timer trees: one per
// thread (nesting by time, as trace viewers draw it) and a merged one.
#pragma once

#include <string>

#include "ringprof/flame.hpp"

namespace ringprof::flame_detail {

// Reads events from `path` (already known to hold an event array). Throws FlameInputError
// naming the file.
FlameProfile read_trace_profile(const std::string& path);

// Sums per-thread trees into `merged` by path; a node reached from two or more threads is
// marked parallel, as the live aggregator does.
void merge_thread_trees(const std::vector<const TimerNode*>& threads, TimerNode& merged);

}  // namespace ringprof::flame_detail
