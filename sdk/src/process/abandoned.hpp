// Objects a forked child must not destroy (their locks or threads belong to the parent) are
// abandoned, not freed. Keeping a pointer to them here makes that deliberate, and keeps leak
// checkers from reporting them.
#pragma once

#include <atomic>
#include <cstddef>

namespace ringprof::detail {

inline void keep_abandoned(const void* p) noexcept {
    static const void* abandoned[64];
    static std::atomic<std::size_t> count{0};
    const std::size_t i = count.fetch_add(1, std::memory_order_relaxed);
    if (i < sizeof abandoned / sizeof abandoned[0]) abandoned[i] = p;
}

}  // namespace ringprof::detail
