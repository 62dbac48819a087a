// ML-Agents' merge of one tree into another, written once for every tree ringprof merges: timer
// trees (`merge-timers`, a worker's tree in its parent), the process tree the drainer assembles
// (AggNode) and the flame graph's sum of thread trees. Totals and counts add up; a node is
// parallel when either side was or the merge itself is (a worker's tree grafted beside
// others'); children are matched by name, and new ones go to the end, in first-seen order.
//
// A tree type takes part through two functions found beside it: add_time(node, seconds, calls,
// thread), which may count the thread that fed the node (0: none), and children_by_name(node),
// something whose child(name) finds or appends a child in constant time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tree/children_by_name.hpp"  // TimerNode's part, seen where the template is defined
#include "tree/parallel_rule.hpp"

namespace ringprof::detail {

template <class Into, class From>
void merge_node_alone(Into& into, const From& from, bool parallel_merge, std::uint64_t thread) {
    add_time(into, from.total, from.count, thread);
    into.is_parallel = parallel_after_merge(into.is_parallel, from.is_parallel, parallel_merge);
}

// Without recursion: a tree a program builds may be as deep as it likes. One child is entered at
// a time, so only the innermost node gains children while the nodes the walk holds stay put.
template <class Into, class From>
void merge_nodes(Into& into, const From& from, bool parallel_merge, std::uint64_t thread = 0) {
    struct Walk {
        Into* into;
        const From* from;
        std::size_t next_child;
    };
    merge_node_alone(into, from, parallel_merge, thread);
    std::vector<Walk> walks{Walk{&into, &from, 0}};
    while (!walks.empty()) {
        Walk& w = walks.back();
        if (w.next_child == w.from->children.size()) {
            walks.pop_back();
            continue;
        }
        const From& c = w.from->children[w.next_child++];
        Into& child = children_by_name(*w.into).child(c.name);
        merge_node_alone(child, c, parallel_merge, thread);
        walks.push_back(Walk{&child, &c, 0});
    }
}

// Where a tree is grafted: the node `path` ("a/b"; empty parts skipped) names below `node`,
// created as needed.
template <class Node>
Node& graft_point(Node& node, std::string_view path) {
    Node* at = &node;
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        const std::string_view part = path.substr(0, slash);
        if (!part.empty()) at = &at->child(part);
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    }
    return *at;
}

}  // namespace ringprof::detail
