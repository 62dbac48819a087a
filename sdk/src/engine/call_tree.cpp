#include "engine/call_tree.hpp"

namespace ringprof::detail {

std::uint32_t CallTree::find_or_add_child(std::uint32_t parent, const Site* site, std::uint64_t key) {
    for (std::uint32_t i = nodes_[parent].first_child; i != 0; i = nodes_[i].next_sibling) {
        if (nodes_[i].site == site && nodes_[i].key == key) {
            nodes_[parent].last_hit = i;
            return i;
        }
    }
    return add_child(parent, site, key);
}

}  // namespace ringprof::detail
