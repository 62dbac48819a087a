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

// Reads every timeline `ringprof merge` reads under the folder `root` (the same discovery and
// reader) into one profile, a lane per thread of every node, plus each node's time per step for
// the steps view. Files that cannot be read are listed in skipped_inputs; throws FlameInputError
// when nothing can be read.
FlameProfile read_folder_profile(const std::string& root);

// Sets `merged`'s children to the per-thread trees summed by path; a node reached from two or
// more threads is marked parallel, as the live aggregator does.
void sum_thread_trees(const std::vector<const TimerNode*>& threads, TimerNode& merged);

}  // namespace ringprof::detail
