// Trees the flame tests share, and small helpers to read outputs back.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ringprof/timer_tree.hpp"

namespace flame_test {

inline ringprof::TimerNode node(const char* name, double total, std::uint64_t count, bool parallel = false,
                                std::vector<ringprof::TimerNode> children = {}) {
    ringprof::TimerNode n(name);
    n.total = total;
    n.count = count;
    n.is_parallel = parallel;
    n.children = std::move(children);
    return n;
}

// A training loop: sequential steps, a worker subtree whose parallel time exceeds its parent's,
// and a name that appears in two places.
inline ringprof::TimerNode training_tree() {
    using std::vector;
    return node("root", 10.0, 1, false,
                {node("train_step", 8.0, 100, false,
                      {node("env_step", 5.0, 400, false,
                            {node("workers", 1.0, 400, false,
                                  {node("worker_root", 3.0, 800, true, {node("simulate", 2.5, 800, true)})})}),
                       node("update_policy", 2.5, 100, false, {node("simulate", 0.5, 100)})}),
                 node("save_model", 1.5, 1)});
}

// Every node with its '/'-joined path, root first (preorder).
inline void for_each_path(
    const ringprof::TimerNode& root,
    const std::function<void(const std::string&, const ringprof::TimerNode&, const ringprof::TimerNode*)>& fn) {
    std::function<void(const ringprof::TimerNode&, const ringprof::TimerNode*, const std::string&)> walk =
        [&](const ringprof::TimerNode& n, const ringprof::TimerNode* parent, const std::string& prefix) {
            const std::string path = prefix.empty() ? n.name : prefix + "/" + n.name;
            fn(path, n, parent);
            for (const ringprof::TimerNode& c : n.children) walk(c, &n, path);
        };
    walk(root, nullptr, "");
}

inline std::size_t node_count(const ringprof::TimerNode& n) {
    std::size_t k = 1;
    for (const ringprof::TimerNode& c : n.children) k += node_count(c);
    return k;
}

// A wide, bushy tree of exactly `nodes` nodes (for the 10,000-node budget).
inline ringprof::TimerNode generated_tree(std::size_t nodes) {
    ringprof::TimerNode root("root");
    root.count = 1;
    std::vector<ringprof::TimerNode*> frontier{&root};
    std::size_t made = 1, next = 0;
    std::vector<ringprof::TimerNode*> all{&root};
    // Breadth-first with fan-out 6; totals are set afterwards, bottom up.
    while (made < nodes) {
        ringprof::TimerNode* parent = all[next++];
        parent->children.reserve(6);
        for (int k = 0; k < 6 && made < nodes; ++k, ++made) {
            parent->children.emplace_back("fn_" + std::to_string(made) + "_" + std::string(k % 3 + 1, 'x'));
            parent->children.back().count = 1 + made % 7;
        }
        for (ringprof::TimerNode& c : parent->children) all.push_back(&c);
    }
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        double sum = 0;
        for (const ringprof::TimerNode& c : (*it)->children) sum += c.total;
        (*it)->total = sum + 0.001 * static_cast<double>(1 + (*it)->name.size() % 5);
    }
    return root;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

}  // namespace flame_test
