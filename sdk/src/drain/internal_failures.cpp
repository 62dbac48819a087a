#include "drain/internal_failures.hpp"

#include <cstdio>

namespace ringprof::detail {

namespace {
std::atomic<std::uint64_t> g_failures{0};
}  // namespace

void note_internal_failure(FailingWork& work, const std::exception* e) noexcept {
    g_failures.fetch_add(1, std::memory_order_relaxed);
    if (work.said.exchange(true, std::memory_order_relaxed)) return;
    // No allocation here: the failure is often one.
    std::fprintf(stderr,
                 "ringprof: %s failed (%s); its part of the profile is lost (counted in the metadata "
                 "as profiler_failures), the program goes on\n",
                 work.name, e != nullptr ? e->what() : "an unknown exception");
}

std::uint64_t internal_failures() noexcept { return g_failures.load(std::memory_order_relaxed); }

}  // namespace ringprof::detail
