#include "stats_accumulator.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

namespace ringprof::detail {

std::size_t StatsAccumulator::RowKeyHash::operator()(const RowKey& k) const noexcept {
    const auto p = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(k.site));
    return static_cast<std::size_t>((p >> 4) * 0x9E3779B97F4A7C15ull ^ (k.signature + 0x632BE59BD9B4E019ull));
}

StatsAccumulator::RowKey StatsAccumulator::canonical(const Site* site, std::uint64_t signature,
                                                     const SignatureTable& signatures) {
    const RowKey key{site, signature};
    const auto hit = canonical_.find(key);
    if (hit != canonical_.end()) return hit->second;
    std::string label =
        std::string(site->file) + '\0' + std::to_string(site->line) + '\0' + site->name + signatures.text(signature);
    // A variant of a label ("name#2": another Python code object on the same line) is a row of
    // its own; every other site merges with those of the same label (one inline function's
    // sites in several libraries).
    const std::size_t name_length = std::strlen(site->name);
    if (std::strncmp(site->function, site->name, name_length) == 0 && site->function[name_length] == '#') {
        label += '\0';
        label += site->function;
    }
    const RowKey row = by_label_.emplace(std::move(label), key).first->second;
    canonical_.emplace(key, row);
    return row;
}

void StatsAccumulator::add_tree(const CallTree& tree, const SignatureTable& signatures) {
    const std::vector<CallNode>& nodes = tree.nodes();
    // Adopted-context placeholders (null site) are transparent: their children count as
    // children of the nearest real ancestor.
    auto real_parent = [&](std::uint32_t i) {
        std::uint32_t p = nodes[i].parent;
        while (p != CallTree::kRoot && nodes[p].site == nullptr) p = nodes[p].parent;
        return p;
    };
    std::vector<std::uint64_t> child_ticks(nodes.size(), 0);
    for (std::uint32_t i = 1; i < nodes.size(); ++i) {
        if (nodes[i].site != nullptr) child_ticks[real_parent(i)] += nodes[i].total_ticks;
    }

    struct Edge {
        RowKey caller;
        RowKey callee;
        bool operator<(const Edge& o) const {
            return std::tie(caller.site, caller.signature, callee.site, callee.signature) <
                   std::tie(o.caller.site, o.caller.signature, o.callee.site, o.callee.signature);
        }
    };
    std::unordered_map<RowKey, std::uint32_t, RowKeyHash> active_rows;
    std::map<Edge, std::uint32_t> active_edges;
    std::vector<RowKey> row_stack;

    auto charge = [](Ticks& t, const CallNode& n, std::uint64_t self, bool recursive) {
        t.ncalls += n.count;
        t.self += self;
        if (!recursive) {
            t.primitive += n.count;
            t.cumulative += n.total_ticks;
        }
    };

    // Iterative depth-first walk: recursion in the profiled program makes deep trees.
    struct Visit {
        std::uint32_t node;
        bool leaving;
    };
    std::vector<Visit> todo{{CallTree::kRoot, false}};
    while (!todo.empty()) {
        const Visit v = todo.back();
        todo.pop_back();
        const CallNode& n = nodes[v.node];
        if (v.leaving) {
            const RowKey row = row_stack.back();
            row_stack.pop_back();
            --active_rows[row];
            if (!row_stack.empty()) --active_edges[Edge{row_stack.back(), row}];
            continue;
        }
        if (n.site != nullptr) {
            const RowKey row = canonical(n.site, n.key, signatures);
            const std::uint64_t self = n.total_ticks > child_ticks[v.node] ? n.total_ticks - child_ticks[v.node] : 0;
            std::uint32_t& depth = active_rows[row];
            charge(rows_[row].ticks, n, self, depth > 0);
            ++depth;
            if (!row_stack.empty()) {
                const RowKey caller = row_stack.back();
                std::uint32_t& edge_depth = active_edges[Edge{caller, row}];
                charge(rows_[caller].callees[row], n, self, edge_depth > 0);
                ++edge_depth;
            }
            row_stack.push_back(row);
            todo.push_back(Visit{v.node, true});
        }
        for (std::uint32_t c = n.first_child; c != 0; c = nodes[c].next_sibling) todo.push_back(Visit{c, false});
    }
}

std::vector<FunctionStats> StatsAccumulator::to_stats(const SignatureTable& signatures, double ns_per_tick) const {
    const double seconds_per_tick = ns_per_tick * 1e-9;
    auto counts_of = [&](const Ticks& t) {
        CallCounts c;
        c.ncalls = t.ncalls;
        c.primitive_calls = t.primitive;
        c.tottime = static_cast<double>(t.self) * seconds_per_tick;
        c.cumtime = static_cast<double>(t.cumulative) * seconds_per_tick;
        return c;
    };

    std::vector<std::pair<const RowKey*, const Row*>> kept;
    for (const auto& [key, row] : rows_) {
        if (row.ticks.ncalls != 0) kept.emplace_back(&key, &row);
    }
    std::vector<FunctionStats> out(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const RowKey& k = *kept[i].first;
        out[i].file = k.site->file;
        out[i].line = k.site->line;
        out[i].name = k.site->name;
        out[i].signature = signatures.text(k.signature);
        out[i].function = k.site->function;
        out[i].counts = counts_of(kept[i].second->ticks);
    }
    std::vector<std::size_t> order(kept.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(out[a].file, out[a].line, out[a].name, out[a].signature, out[a].function) <
               std::tie(out[b].file, out[b].line, out[b].name, out[b].signature, out[b].function);
    });
    std::unordered_map<RowKey, std::size_t, RowKeyHash> index;
    std::vector<FunctionStats> sorted;
    sorted.reserve(out.size());
    for (const std::size_t i : order) {
        index.emplace(*kept[i].first, sorted.size());
        sorted.push_back(std::move(out[i]));
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
        FunctionStats& f = sorted[i];
        for (const auto& [callee, ticks] : kept[order[i]].second->callees) {
            const auto it = index.find(callee);
            if (it == index.end() || ticks.ncalls == 0) continue;
            f.callees.push_back(CalleeStats{it->second, counts_of(ticks)});
        }
        std::sort(f.callees.begin(), f.callees.end(),
                  [](const CalleeStats& a, const CalleeStats& b) { return a.callee < b.callee; });
    }
    return sorted;
}

}  // namespace ringprof::detail
