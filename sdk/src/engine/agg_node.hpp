// The process tree while it is being assembled from thread trees and merged worker trees. Like
// TimerNode, plus how many threads fed each node: two or more make it parallel.
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
    bool parallel = false;               // set by merging a worker process's tree
    std::vector<AggNode> children;       // first-seen order; only child() adds to it
    ChildIndex index;                    // positions in `children` by name, once there are many

    AggNode& child(std::string_view child_name);
    void charge(double seconds, std::uint64_t calls, std::uint64_t contributor);
    // A foreign tree (a worker process's), merged ML-Agents style.
    void merge(const TimerNode& other, bool parallel_flag);
    // Another partial process tree: sums times, keeps parallel flags.
    void absorb(const AggNode& other);
    // Nodes below kMaxTreeDepth are folded into their ancestor there, counted in `folded`.
    TimerNode to_timer_node(std::uint64_t* folded = nullptr, std::size_t level = 0) const;
};

}  // namespace ringprof::detail
