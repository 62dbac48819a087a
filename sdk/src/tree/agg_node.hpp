// A tree being assembled from the trees of several threads: the drainer's process tree (thread
// call trees folded in, worker trees merged in) and a flame graph's sum of thread trees. Like
// TimerNode, plus how many threads fed each node, which decides the parallel flag it gets in the
// TimerNode it becomes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/timer_tree.hpp"
#include "tree/child_index.hpp"

namespace ringprof::detail {

struct AggNode {
    std::string name;
    double total = 0.0;
    std::uint64_t count = 0;
    std::uint32_t threads = 0;           // distinct threads that charged time here
    std::uint64_t last_contributor = 0;  // serial of the last thread counted in `threads`
    bool is_parallel = false;            // marked by a merge; the thread count is added at the end
    std::uint64_t folded_below = 0;      // nodes of a deeper call tree folded into this one (at kMaxTreeDepth)
    std::vector<AggNode> children;       // first-seen order; only child() adds to it
    ChildIndex index;                    // positions in `children` by name, once there are many

    AggNode& child(std::string_view child_name);
    // `contributor`: the serial (> 0) of the thread the time is from, or 0 for a merged tree's
    // time, which counts no thread. Threads are charged one after another, so a change of
    // contributor is another thread.
    void charge(double seconds, std::uint64_t calls, std::uint64_t contributor);
    // Nodes below kMaxTreeDepth are folded into their ancestor there, counted in `folded`.
    TimerNode to_timer_node(std::uint64_t* folded = nullptr, std::size_t level = 0) const;
};

// AggNode's part in merge_nodes (tree/merge_nodes.hpp).
inline AggNode& children_by_name(AggNode& node) { return node; }
inline void add_time(AggNode& node, double seconds, std::uint64_t calls, std::uint64_t thread) {
    node.charge(seconds, calls, thread);
}

}  // namespace ringprof::detail
