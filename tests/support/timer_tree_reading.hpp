// Reading a timer tree back: a metadata value, and how deep the tree goes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ringprof/timer_tree.hpp"

namespace ringprof::testing {

// The value saved under `key`; "" when there is none.
inline std::string metadata_value(const TimerTree& tree, const std::string& key) {
    const std::string* v = tree.find_metadata(key);
    return v != nullptr ? *v : "";
}

// Levels below the root on the deepest path, walked without recursion: the trees these tests
// guard against are the ones that grew a level per scope.
inline std::size_t tree_depth(const TimerNode& root) {
    std::size_t deepest = 0;
    std::vector<std::pair<const TimerNode*, std::size_t>> todo{{&root, 0}};
    while (!todo.empty()) {
        const auto [node, depth] = todo.back();
        todo.pop_back();
        deepest = std::max(deepest, depth);
        for (const TimerNode& c : node->children) todo.emplace_back(&c, depth + 1);
    }
    return deepest;
}

}  // namespace ringprof::testing
