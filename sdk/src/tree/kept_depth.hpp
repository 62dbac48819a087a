// Every tree ringprof builds keeps kMaxTreeDepth levels (ringprof/timer_tree.hpp), so its writers
// and flame graphs walk trees by recursion bounded by that depth. A TimerNode a program builds by
// hand and passes to them may be deeper: they take a copy that keeps kMaxTreeDepth levels, each
// kept node with its own total and count (its self time then includes what was below). Both
// functions walk without recursion.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "ringprof/timer_tree.hpp"

namespace ringprof::detail {

inline bool deeper_than_kept(const TimerNode& root) {
    std::vector<std::pair<const TimerNode*, std::size_t>> todo{{&root, 0}};
    while (!todo.empty()) {
        const auto [node, level] = todo.back();
        todo.pop_back();
        if (level > kMaxTreeDepth) return true;
        for (const TimerNode& c : node->children) todo.emplace_back(&c, level + 1);
    }
    return false;
}

inline TimerNode copy_within_kept_depth(const TimerNode& root) {
    auto copy_fields = [](const TimerNode& from, TimerNode& to) {
        to.name = from.name;
        to.total = from.total;
        to.count = from.count;
        to.is_parallel = from.is_parallel;
    };
    TimerNode out;
    copy_fields(root, out);
    struct Walk {
        const TimerNode* from;
        TimerNode* to;
        std::size_t level;
    };
    // Each node's children are made at once and never resized again: the pointers held stay put.
    std::vector<Walk> todo{Walk{&root, &out, 0}};
    while (!todo.empty()) {
        const Walk w = todo.back();
        todo.pop_back();
        if (w.level == kMaxTreeDepth) continue;
        w.to->children.resize(w.from->children.size());
        for (std::size_t i = 0; i < w.from->children.size(); ++i) {
            copy_fields(w.from->children[i], w.to->children[i]);
            todo.push_back(Walk{&w.from->children[i], &w.to->children[i], w.level + 1});
        }
    }
    return out;
}

}  // namespace ringprof::detail
