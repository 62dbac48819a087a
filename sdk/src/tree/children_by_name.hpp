// Children of a TimerNode looked up by name while a tree is built or merged. TimerNode keeps no
// index of its own (its `children` is a plain vector anyone may fill); a builder that looks up
// many children of one node holds one of these for the node, so that lookups stay constant time
// and new children still go to the end, in first-seen order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/timer_tree.hpp"
#include "tree/child_index.hpp"

namespace ringprof::detail {

// A scan, for one lookup or few children. Counted as lookup work like the index.
template <class Node>
Node* scan_children(std::vector<Node>& children, std::string_view name) {
    std::uint64_t compared = 0;
    Node* found = nullptr;
    for (Node& c : children) {
        ++compared;
        if (c.name == name) {
            found = &c;
            break;
        }
    }
    ChildLookupWork::add(compared);
    return found;
}
template <class Node>
const Node* scan_children(const std::vector<Node>& children, std::string_view name) {
    return scan_children(const_cast<std::vector<Node>&>(children), name);
}

// The child called `name`, appended when missing; `index` covers `children` once it has been
// needed (children added only through here while it does).
template <class Node>
Node& find_or_add_child(std::vector<Node>& children, ChildIndex& index, std::string_view name) {
    if (index.empty() && children.size() < kChildScanLimit) {
        if (Node* c = scan_children(children, name)) return *c;
    } else {
        const auto hash_of = [&children](std::uint32_t p) { return hash_name(children[p].name); };
        if (index.empty()) {
            for (std::uint32_t p = 0; p < children.size(); ++p) index.insert(hash_of(p), p, hash_of);
        }
        const std::uint64_t hash = hash_name(name);
        const std::uint32_t at = index.find(hash, [&](std::uint32_t p) { return children[p].name == name; });
        if (at != ChildIndex::kMissing) return children[at];
        index.insert(hash, static_cast<std::uint32_t>(children.size()), hash_of);
    }
    children.emplace_back();
    children.back().name = std::string(name);
    return children.back();
}

class ChildrenByName {
public:
    // `children` must only grow through child() while this lives.
    explicit ChildrenByName(std::vector<TimerNode>& children) : children_(children) {}

    TimerNode& child(std::string_view name) { return find_or_add_child(children_, index_, name); }

private:
    std::vector<TimerNode>& children_;
    ChildIndex index_;
};

// TimerNode's part in merge_nodes (tree/merge_nodes.hpp): one index of a node's children for
// all the children merged into it, so a merge is linear in both trees' sizes.
inline ChildrenByName children_by_name(TimerNode& node) { return ChildrenByName(node.children); }
inline void add_time(TimerNode& node, double seconds, std::uint64_t calls, std::uint64_t /*thread*/) {
    node.total += seconds;
    node.count += calls;
}

}  // namespace ringprof::detail
