// One thread's aggregates, keyed by call path: each node is a (site, key) reached through a
// unique chain of parents. Kept in a flat vector with index links so the drainer's per-event
// work is one hash probe and two additions, with no allocation once the paths are known.
#pragma once

#include <cstdint>
#include <vector>

#include "drain/timeline_records.hpp"
#include "ringprof/site.hpp"
#include "tree/child_index.hpp"

namespace ringprof::detail {

struct CallNode {
    const Site* site = nullptr;  // null for the root and for adopted-context placeholders
    std::uint64_t key = 0;       // context path id (placeholders) or signature id (signatures)
    std::uint32_t parent = 0;
    std::uint32_t first_child = 0;  // 0: none (index 0 is the root, never anyone's child)
    std::uint32_t last_child = 0;
    std::uint32_t next_sibling = 0;
    std::uint32_t last_hit = 0;  // the child entered last: hot loops revisit it
    std::uint32_t level : 31;    // the root's children: 1
    // Scopes of this site end out of nesting (CallTree::hold_aside): they are kept beside the
    // thread's open scopes, never as a parent of what the thread does next.
    std::uint32_t held_aside : 1;
    std::uint64_t count = 0;
    std::uint64_t total_ticks = 0;
    // The node's spans in a timeline, worked out once here rather than per span on the drainer:
    // site and depth as TimelineRecords::span_word packs them.
    std::uint64_t span_word = TimelineRecords::kNoSpanWord;
    std::uint32_t span_depth() const { return level - 1; }

    CallNode() : level(0), held_aside(0) {}
};

class CallTree {
public:
    static constexpr std::uint32_t kRoot = 0;

    CallTree() { nodes_.emplace_back(); }

    // Inline, the hot loop's case (the child entered last); the index lookup out of line, so
    // that the compiler still inlines this into the drainer's decode loop (it stopped once
    // decode had two instances: 30 instructions more per Begin, callgrind).
    std::uint32_t child(std::uint32_t parent, const Site* site, std::uint64_t key) {
        const std::uint32_t hit = nodes_[parent].last_hit;
        if (hit != 0 && nodes_[hit].site == site && nodes_[hit].key == key) return hit;
        return find_or_add_child(parent, site, key);
    }

    void charge(std::uint32_t node, std::uint64_t ticks) {
        CallNode& n = nodes_[node];
        ++n.count;
        n.total_ticks += ticks;
    }

    const std::vector<CallNode>& nodes() const { return nodes_; }

    // Zeroes every count and total but keeps the nodes: open scopes still point at them.
    void reset_counts() {
        for (CallNode& n : nodes_) {
            n.count = 0;
            n.total_ticks = 0;
        }
    }
    bool empty() const { return nodes_.size() == 1; }

    // From now on, every node of `site` is held aside (CallNode::held_aside), those already
    // made included.
    void hold_aside(const Site* site) {
        held_sites_.push_back(site);
        for (CallNode& n : nodes_) {
            if (n.site == site) n.held_aside = 1;
        }
    }
    // Moves a node's calls and time to another (a path rewritten: Aggregator::hold_aside).
    void move_counts(std::uint32_t from, std::uint32_t to) {
        nodes_[to].count += nodes_[from].count;
        nodes_[to].total_ticks += nodes_[from].total_ticks;
        nodes_[from].count = 0;
        nodes_[from].total_ticks = 0;
    }

private:
    std::uint32_t find_or_add_child(std::uint32_t parent, const Site* site, std::uint64_t key);
    static std::uint64_t hash_of(std::uint32_t parent, const Site* site, std::uint64_t key) {
        return (reinterpret_cast<std::uintptr_t>(site) * 0x9e3779b97f4a7c15ull) ^ (key * 0xc2b2ae3d27d4eb4full) ^
               parent;
    }
    std::uint32_t add_child(std::uint32_t parent, const Site* site, std::uint64_t key) {
        const auto index = static_cast<std::uint32_t>(nodes_.size());
        CallNode n;
        n.site = site;
        n.key = key;
        n.parent = parent;
        n.level = nodes_[parent].level + 1;
        n.span_word = TimelineRecords::span_word(site, n.span_depth());
        for (const Site* held : held_sites_) {
            if (held == site && site != nullptr) n.held_aside = 1;
        }
        nodes_.push_back(n);
        CallNode& p = nodes_[parent];
        if (p.first_child == 0) {
            p.first_child = index;
        } else {
            nodes_[p.last_child].next_sibling = index;
        }
        p.last_child = index;
        p.last_hit = index;
        return index;
    }

    std::vector<CallNode> nodes_;
    std::vector<const Site*> held_sites_;  // hold_aside(): few, usually none
    // Every node but the root by (parent, site, key): siblings are found without a scan.
    ChildIndex children_;
};

}  // namespace ringprof::detail
