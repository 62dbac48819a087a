#include "flame/profile_from_trace.hpp"
#include "tree/agg_node.hpp"
#include "tree/merge_nodes.hpp"

namespace ringprof::detail {

void sum_thread_trees(const std::vector<const TimerNode*>& threads, TimerNode& merged) {
    AggNode sum;
    for (std::size_t i = 0; i < threads.size(); ++i) {
        for (const TimerNode& c : threads[i]->children) merge_nodes(sum.child(c.name), c, false, i + 1);
    }
    merged.children = std::move(sum.to_timer_node().children);
}

}  // namespace ringprof::detail
