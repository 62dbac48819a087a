// Flat statistics folded from per-thread call trees, in raw ticks (converted to seconds only
// when a snapshot is taken, with the calibration of that moment).
//
// A row is a (site, signature) pair; sites that print the same (template instances share
// file, line and name) share a row. Per tree node, all its calls have the same ancestors, so:
// ncalls sums counts; a node with an ancestor of its own row is recursive (not primitive) and
// its total is already inside that ancestor's, so cumtime sums only non-recursive nodes;
// tottime sums self time (total minus the children's totals). Caller->callee edges do the same
// with the recursion of the pair, as cProfile's sub-entries do.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "drain/call_tree.hpp"
#include "ringprof/stats.hpp"
#include "signature_table.hpp"

namespace ringprof::detail {

class StatsAccumulator {
public:
    void add_tree(const CallTree& tree, const SignatureTable& signatures);

    // Rows with at least one completed call, ordered by file, line and label; callee indices
    // refer to that order.
    std::vector<FunctionStats> to_stats(const SignatureTable& signatures, double ns_per_tick) const;

private:
    struct RowKey {
        const Site* site = nullptr;
        std::uint64_t signature = 0;
        bool operator==(const RowKey& o) const { return site == o.site && signature == o.signature; }
    };
    struct RowKeyHash {
        std::size_t operator()(const RowKey& k) const noexcept;
    };
    struct Ticks {
        std::uint64_t ncalls = 0;
        std::uint64_t primitive = 0;
        std::uint64_t self = 0;
        std::uint64_t cumulative = 0;
    };
    struct Row {
        Ticks ticks;
        std::unordered_map<RowKey, Ticks, RowKeyHash> callees;
    };

    RowKey canonical(const Site* site, std::uint64_t signature, const SignatureTable& signatures);

    std::unordered_map<RowKey, Row, RowKeyHash> rows_;
    std::unordered_map<RowKey, RowKey, RowKeyHash> canonical_;  // (site, signature) -> its row
    std::map<std::string, RowKey> by_label_;                    // "file\0line\0label" -> row
};

}  // namespace ringprof::detail
