// What a full ring needs beyond the ring itself: the full-ring policy, whether a drainer is
// there to make room (and a doorbell to wake it), and pre-faulted segments to grow into.
//
// Sizes (memory per recording thread): every thread starts with a 16 KiB segment. A thread
// whose segment fills moves to a 4 MiB "hot" segment the drainer keeps ready (two at a time),
// then to 4x bigger ones the drainer allocates while it is more than a quarter full, up to
// Config::ring_bytes (RINGPROF_RING_BYTES, default 16 MiB, at most 1 GiB). Segments a thread
// has left are freed as soon as they are read.
#pragma once

#include <chrono>
#include <cstdint>

#include "ringprof/config.hpp"
#include "ringprof/detail/ring.hpp"

namespace ringprof::detail {

// Measured: 1,000 threads recording a few scopes each hold ~16 MB of first segments in all,
// and 1,024 events (512 scopes) is more than most threads of a pool ever keep in flight.
constexpr std::uint64_t kFirstSegmentBytes = std::uint64_t{16} << 10;
// ~2 ms of full-speed nested scopes on this machine (bench_pipeline): a scheduler time slice.
constexpr std::uint64_t kHotSegmentBytes = std::uint64_t{4} << 20;
constexpr std::uint64_t kMaxRingBytes = std::uint64_t{1} << 30;

// Events of a ring of at most `bytes` (a power of two, at least 64), clamped to kMaxRingBytes.
std::uint64_t ring_events_for_bytes(std::uint64_t bytes) noexcept;
// The same for a session's Config::ring_bytes; says on stderr when it had to be capped.
std::uint64_t ring_events_for_config(const Config& config);

void set_full_ring_policy(OnFull policy) noexcept;
OnFull full_ring_policy() noexcept;

// Drainer side: whether producers may wait for it.
void drainer_started() noexcept;
void drainer_stopped() noexcept;
void drainer_pass_done() noexcept;  // progress, so a waiter can tell a stalled drainer
std::uint64_t drainer_passes() noexcept;  // passes so far in this process (tests count them)
std::uint32_t doorbell() noexcept;  // times rung so far (wrapping)
// Sleeps until the doorbell rings after `seen` was read, or `timeout` passes.
void sleep_until_rung(std::uint32_t seen, std::chrono::microseconds timeout) noexcept;
// Producer side (rare, out of line) and commands: wakes a sleeping drainer.
void ring_doorbell() noexcept;
// The drainer and the timeline writer must never wait for room (they make it).
void never_wait_on_this_thread() noexcept;

// Pre-faulted (no page fault when written); null if the memory cannot be had.
RingSegment* allocate_segment(std::uint64_t capacity) noexcept;
void free_segment(RingSegment* segment) noexcept;
// Keeps the hot segments ready (drainer, after a pass).
void refill_hot_segments(std::uint64_t capacity) noexcept;
// In a forked child: the parent's ready segments are shared copy-on-write, so writing them would
// fault; they are unmapped.
void forget_hot_segments_after_fork() noexcept;

// Records refused because the thread could get no ring at all (memory exhausted): counted as
// dropped scopes like any other refusal.
void count_ringless_drop() noexcept;
std::uint64_t ringless_drops() noexcept;

}  // namespace ringprof::detail
