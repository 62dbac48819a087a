#include "tree/agg_node.hpp"

#include "tree/children_by_name.hpp"
#include "tree/parallel_rule.hpp"

namespace ringprof::detail {

AggNode& AggNode::child(std::string_view child_name) { return find_or_add_child(children, index, child_name); }

void AggNode::charge(double seconds, std::uint64_t calls, std::uint64_t contributor) {
    total += seconds;
    count += calls;
    if (contributor != 0 && contributor != last_contributor) {
        last_contributor = contributor;
        ++threads;
    }
}

namespace {
// Nodes below `n`, counted without recursion (the tree below may be as deep as the program's).
std::uint64_t descendants(const AggNode& n) {
    std::uint64_t count = 0;
    std::vector<const AggNode*> todo{&n};
    while (!todo.empty()) {
        const AggNode* at = todo.back();
        todo.pop_back();
        for (const AggNode& c : at->children) {
            ++count;
            todo.push_back(&c);
        }
    }
    return count;
}
}  // namespace

TimerNode AggNode::to_timer_node(std::uint64_t* folded, std::size_t level) const {
    TimerNode n;
    n.name = name;
    n.total = total;
    n.count = count;
    n.is_parallel = parallel_with_threads(is_parallel, threads);
    if (level == kMaxTreeDepth) {
        if (folded != nullptr) *folded += descendants(*this) + folded_below;
        return n;
    }
    n.children.reserve(children.size());
    for (const AggNode& c : children) n.children.push_back(c.to_timer_node(folded, level + 1));
    return n;
}

}  // namespace ringprof::detail
