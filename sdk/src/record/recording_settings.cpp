#include "record/recording_settings.hpp"

#include <atomic>

#include "ringprof/detail/recorder.hpp"

namespace ringprof::detail {

namespace {
std::atomic<std::uint64_t> g_ring_capacity{std::uint64_t{1} << 16};
std::atomic<std::uint64_t (*)()> g_custom_clock{nullptr};
}  // namespace

void set_ring_capacity_for_new_threads(std::uint64_t events) noexcept {
    g_ring_capacity.store(events, std::memory_order_relaxed);
}

std::uint64_t ring_capacity_for_new_threads() noexcept { return g_ring_capacity.load(std::memory_order_relaxed); }

void set_recording_clock(std::uint64_t (*custom_clock)()) noexcept {
    g_custom_clock.store(custom_clock, std::memory_order_relaxed);
}

std::uint64_t slow_ticks() noexcept {
    auto* custom = g_custom_clock.load(std::memory_order_relaxed);
    return custom != nullptr ? custom() : read_ticks();
}

}  // namespace ringprof::detail
