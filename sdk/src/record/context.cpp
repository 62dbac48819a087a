#include "ringprof/context.hpp"

#include <atomic>

namespace ringprof {

namespace {
std::atomic<std::uint64_t> g_next_context{1};
}

Context capture_context() noexcept {
    const std::uint64_t id = g_next_context.fetch_add(1, std::memory_order_relaxed);
    detail::Event e{0, detail::make_tag(id, detail::EventKind::ContextCapture)};
    // If the capture cannot be recorded, adopting it would nest at the root anyway.
    return detail::write_record(&e, 1) ? Context{id} : Context{0};
}

}  // namespace ringprof
