#include "drain/call_tree.hpp"

namespace ringprof::detail {

std::uint32_t CallTree::find_or_add_child(std::uint32_t parent, const Site* site, std::uint64_t key) {
    const std::uint64_t hash = hash_of(parent, site, key);
    const std::uint32_t found = children_.find(hash, [&](std::uint32_t i) {
        const CallNode& n = nodes_[i];
        return n.parent == parent && n.site == site && n.key == key;
    });
    if (found != ChildIndex::kMissing) {
        nodes_[parent].last_hit = found;
        return found;
    }
    const std::uint32_t added = add_child(parent, site, key);
    children_.insert(hash, added, [this](std::uint32_t i) {
        const CallNode& n = nodes_[i];
        return hash_of(n.parent, n.site, n.key);
    });
    return added;
}

}  // namespace ringprof::detail
