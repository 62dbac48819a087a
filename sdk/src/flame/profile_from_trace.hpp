// Turns the X and B/E events of a Chrome trace or pythontimeline into timer trees: one per
// thread (nesting by time, as trace viewers draw it) and a merged one.
#pragma once

#include <string>

#include "ringprof/flame.hpp"

namespace ringprof::detail {

// Reads events from `path` through the shared trace reader (trace/trace_reader, the one `ringprof
// merge` uses). Throws FlameInputError naming the file, or detail::NotATraceError when the file
// holds no event list at all (it may be a timers file).
FlameProfile read_trace_profile(const std::string& path);

// Sums per-thread trees into `merged` by path; a node reached from two or more threads is
// marked parallel, as the live aggregator does.
void merge_thread_trees(const std::vector<const TimerNode*>& threads, TimerNode& merged);

}  // namespace ringprof::detail
