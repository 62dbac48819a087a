#include <algorithm>
#include <cmath>

#include "ringprof/timer_tree.hpp"
#include "tree/children_by_name.hpp"
#include "tree/merge_nodes.hpp"

namespace ringprof {

namespace {
// The slow way, when not even a list of the path could be had: the deepest last child, from the
// top each time.
void free_without_memory(TimerNode& top) noexcept {
    while (!top.children.empty()) {
        TimerNode* parent = &top;
        while (!parent->children.back().children.empty()) parent = &parent->children.back();
        parent->children.pop_back();
    }
}
}  // namespace

// Walks down the last children, and frees each node once its own children are gone: every node
// is destroyed with none, so no destructor runs another one's.
TimerNode::~TimerNode() {
    if (children.empty()) return;
    try {
        std::vector<TimerNode*> path{this};
        while (!path.empty()) {
            TimerNode* n = path.back();
            if (!n->children.empty()) {
                path.push_back(&n->children.back());
                continue;
            }
            path.pop_back();
            if (!path.empty()) path.back()->children.pop_back();  // `n`, now without children
        }
    } catch (...) {
        free_without_memory(*this);
    }
}

double TimerNode::self() const {
    double children_total = 0.0;
    for (const TimerNode& c : children) children_total += c.total;
    return std::max(0.0, total - children_total);
}

TimerNode& TimerNode::child(std::string_view child_name) {
    if (TimerNode* c = detail::scan_children(children, child_name)) return *c;
    children.emplace_back();
    children.back().name = std::string(child_name);
    return children.back();
}

const TimerNode* TimerNode::find(std::string_view child_name) const {
    return detail::scan_children(children, child_name);
}

const TimerNode* TimerNode::find_path(std::string_view path) const {
    const TimerNode* node = this;
    while (node != nullptr && !path.empty()) {
        const std::size_t slash = path.find('/');
        node = node->find(path.substr(0, slash));
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    }
    return node;
}

void TimerNode::merge(const TimerNode& other, bool parallel) { detail::merge_nodes(*this, other, parallel); }

void Gauge::set(double v, std::uint64_t when_ns) {
    if (!std::isfinite(v)) {
        ++non_finite;
        return;
    }
    if (count == 0) {
        min = max = v;
    } else {
        min = std::min(min, v);
        max = std::max(max, v);
    }
    if (count == 0 || when_ns >= updated_ns) {
        value = v;
        updated_ns = when_ns;
    }
    ++count;
}

void Gauge::merge(const Gauge& other) {
    non_finite += other.non_finite;
    if (other.count == 0) return;
    if (count == 0) {
        const std::uint64_t own_non_finite = non_finite;
        *this = other;
        non_finite = own_non_finite;
        return;
    }
    min = std::min(min, other.min);
    max = std::max(max, other.max);
    if (other.updated_ns >= updated_ns) {
        value = other.value;
        updated_ns = other.updated_ns;
    }
    count += other.count;
}

Gauge& TimerTree::gauge(std::string_view name) {
    for (auto& [n, g] : gauges) {
        if (n == name) return g;
    }
    gauges.emplace_back(std::string(name), Gauge{});
    return gauges.back().second;
}

void TimerTree::set_metadata(std::string_view key, std::string_view value) {
    for (auto& [k, v] : metadata) {
        if (k == key) {
            v = std::string(value);
            return;
        }
    }
    metadata.emplace_back(std::string(key), std::string(value));
}

const std::string* TimerTree::find_metadata(std::string_view key) const {
    for (const auto& [k, v] : metadata) {
        if (k == key) return &v;
    }
    return nullptr;
}

namespace {
// A graft can push a tree that was within kMaxTreeDepth below it.
void fold_deep(TimerNode& n, std::size_t level) {
    if (level == kMaxTreeDepth) {
        n.children.clear();
        return;
    }
    for (TimerNode& c : n.children) fold_deep(c, level + 1);
}
}  // namespace

void TimerTree::merge(const TimerTree& other, std::string_view graft_path, bool parallel) {
    TimerNode& node = detail::graft_point(root, graft_path);
    node.merge(other.root, parallel);
    if (&node != &root) fold_deep(root, 0);
    for (const auto& [name, g] : other.gauges) gauge(name).merge(g);
}

}  // namespace ringprof
