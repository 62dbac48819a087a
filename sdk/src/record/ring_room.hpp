// What a full ring needs beyond the ring itself: the full-ring policy, whether a drainer is
// there to make room (and a doorbell to wake it), and pre-faulted segments to grow into.
//
// Sizes (memory per recording thread): every thread starts with a 16 KiB segment. A thread
// whose segment fills moves to a 4 MiB "hot" segment from a pool the drainer keeps ready, then
// to 4x bigger ones the drainer offers it while it is more than a quarter full, up to
// Config::ring_bytes (RINGPROF_RING_BYTES, default 16 MiB, at most 1 GiB). When neither is ready
// the thread maps the next segment itself (Ring::grow_on_this_thread): growth never waits for
// the drainer; only a ring at its maximum does. Segments a thread has left are freed as soon
// as they are read.
#pragma once

#include <chrono>
#include <cstdint>

#include "process/numeric_settings.hpp"  // kMaxRingBytes
#include "ringprof/config.hpp"
#include "ringprof/detail/ring.hpp"
#include "ringprof/site.hpp"

namespace ringprof::detail {

// Measured: 1,000 threads recording a few scopes each hold ~16 MB of first segments in all,
// and 1,024 events (512 scopes) is more than most threads of a pool ever keep in flight.
constexpr std::uint64_t kFirstSegmentBytes = std::uint64_t{16} << 10;
// ~2 ms of full-speed nested scopes on this machine (bench_pipeline): a scheduler time slice.
constexpr std::uint64_t kHotSegmentBytes = std::uint64_t{4} << 20;

// Events of a ring of at most `bytes` (a power of two, at least 64), clamped to kMaxRingBytes.
std::uint64_t ring_events_for_bytes(std::uint64_t bytes) noexcept;
// The same for a session's Config::ring_bytes; says on stderr when it had to be capped.
std::uint64_t ring_events_for_config(const Config& config);

void set_full_ring_policy(OnFull policy) noexcept;
OnFull full_ring_policy() noexcept;

// Drainer side: whether producers may wait for it.
void drainer_started() noexcept;
void drainer_stopped() noexcept;
void drainer_pass_done() noexcept;        // progress, so a waiter can tell a stalled drainer
std::uint64_t drainer_passes() noexcept;  // passes so far in this process (tests count them)
std::uint32_t doorbell() noexcept;        // times rung so far (wrapping)
// Sleeps until the doorbell rings after `seen` was read, or `timeout` passes.
void sleep_until_rung(std::uint32_t seen, std::chrono::microseconds timeout) noexcept;
// Producer side (rare, out of line) and commands: wakes a sleeping drainer.
void ring_doorbell() noexcept;
// The drainer and the timeline writer must never wait for room (they make it).
void never_wait_on_this_thread() noexcept;

// The segment a full ring of `capacity` events moves on to (drainer and producer alike).
std::uint64_t next_segment_capacity(std::uint64_t capacity, std::uint64_t max_capacity) noexcept;
// Pre-faulted (no page fault when written), a page at a time so that a producer mapping its own
// segment meanwhile is not held up; null if the memory cannot be had. The segment's
// header lives in the same mapping, so neither this nor free_segment touches the heap.
RingSegment* allocate_segment(std::uint64_t capacity) noexcept;
// The producer's own growth: one mmap, its pages faulted in as they are first written.
RingSegment* allocate_segment_unfaulted(std::uint64_t capacity) noexcept;
void free_segment(RingSegment* segment) noexcept;
// Keeps `wanted` hot segments ready (drainer, after a pass), at least kBaseHotSegments and at
// most kMaxHotSegments; segments beyond `wanted` are freed.
constexpr int kBaseHotSegments = 2;
constexpr int kMaxHotSegments = 8;
void refill_hot_segments(std::uint64_t capacity, int wanted) noexcept;
// The same with segments mapped but not yet faulted in (microseconds, for the thread that starts
// a session); prefault_hot_segments() then replaces them with faulted ones, on the drainer.
void stock_hot_segments_unfaulted(std::uint64_t capacity, int wanted) noexcept;
void prefault_hot_segments() noexcept;
// The site of the `ringprof.grow` scope a producer records around its own growth.
const Site& growth_site() noexcept;
// Tests: off, the drainer neither keeps hot segments nor offers bigger ones (the pool is
// emptied), so every growth happens on the producer.
void prepare_segments_ahead(bool on) noexcept;
bool segments_prepared_ahead() noexcept;
// Tests: hot segments in the pool now.
int hot_segments_ready() noexcept;
// In a forked child: the parent's ready segments are shared copy-on-write, so writing them would
// fault; they are unmapped.
void forget_hot_segments_after_fork() noexcept;

// Records refused because the thread could get no ring at all (memory exhausted): counted as
// dropped scopes like any other refusal.
void count_ringless_drop() noexcept;
std::uint64_t ringless_drops() noexcept;

}  // namespace ringprof::detail
