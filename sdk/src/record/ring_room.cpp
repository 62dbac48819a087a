#include "record/ring_room.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <atomic>
#include <mutex>
#include <new>
#include <pthread.h>

#include "ringprof/detail/recorder.hpp"
#include "ringprof/site.hpp"

namespace ringprof::detail {

namespace {

constexpr Site kWaitSite{"ringprof.wait", "ringprof", __FILE__, __LINE__};
constexpr Site kGrowSite{"ringprof.grow", "ringprof", __FILE__, __LINE__};

// A wait for room or a growth is recorded as a scope of ringprof's own (kWaitSite, kGrowSite) on
// the thread it held up: its Begin and End, written together once it is over, so it needs room
// for this many events beside the record that asked for room.
constexpr std::uint64_t kOwnScopeEvents = 2;

void write_own_scope(Ring& ring, const Site& site, std::uint64_t begin, std::uint64_t end) noexcept {
    const Event scope[kOwnScopeEvents] = {{begin, make_tag(&site, EventKind::Begin)},
                                          {end, make_tag(&site, EventKind::End)}};
    ring.write(scope, kOwnScopeEvents);
}

// Spinning first: a drainer already awake frees room within microseconds; after that the
// waiter yields its core to it (two cores, five processes: the drainer may need this one).
constexpr int kSpins = 2000;
// A drainer that makes no pass for this long is blocked (a backend that never returns, a lock
// held by the waiter): the waiter stops waiting and drops, counted, until the drainer moves.
constexpr auto kStalledDrainer = std::chrono::milliseconds(1000);
constexpr std::uint64_t kWakeFillDivisor = 4;  // wake the drainer at a quarter full
// The segment's header shares its mapping, in a page of its own after the slots (a segment's
// slots stay a power of two, page-aligned).
constexpr std::uint64_t kHeaderBytes = 4096;
static_assert(sizeof(RingSegment) <= kHeaderBytes);
constexpr std::uint64_t kPageBytes = 4096;  // written once each to fault a segment in
constexpr std::uint64_t kUnmapPieceBytes = std::uint64_t{256} << 10;

std::atomic<std::uint8_t> g_policy{static_cast<std::uint8_t>(OnFull::Wait)};
std::atomic<bool> g_drainer_alive{false};
std::atomic<std::uint64_t> g_drainer_passes{0};
std::atomic<std::uint32_t> g_bell{0};
std::atomic<bool> g_drainer_sleeping{false};
thread_local bool t_never_wait = false;
// The drainer pass count at which this thread last gave up waiting: it drops without waiting
// again until the drainer moves.
thread_local std::uint64_t t_gave_up_at = ~std::uint64_t{0};

std::array<std::atomic<RingSegment*>, kMaxHotSegments> g_hot{};
std::atomic<bool> g_prepare_ahead{true};
std::atomic<std::uint64_t> g_ringless_drops{0};

void forget_drainer_in_child() { g_drainer_alive.store(false, std::memory_order_relaxed); }

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
    return ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

RingSegment* take_hot_segment(std::uint64_t at_most) noexcept {
    for (auto& slot : g_hot) {
        RingSegment* s = slot.load(std::memory_order_acquire);
        if (s == nullptr || s->capacity > at_most) continue;
        if ((s = slot.exchange(nullptr, std::memory_order_acq_rel)) == nullptr) continue;
        if (s->capacity <= at_most) return s;
        RingSegment* expected = nullptr;  // too big for this ring after all: give it back
        if (!slot.compare_exchange_strong(expected, s, std::memory_order_acq_rel)) free_segment(s);
    }
    return nullptr;
}

}  // namespace

std::uint64_t ring_events_for_bytes(std::uint64_t bytes) noexcept {
    bytes = std::min(bytes, kMaxRingBytes);
    std::uint64_t events = 64;
    while (events * sizeof(Event) < bytes) events <<= 1;
    return events;
}

std::uint64_t ring_events_for_config(const Config& config) {
    if (config.ring_bytes > kMaxRingBytes) {
        std::fprintf(stderr,
                     "ringprof: RINGPROF_RING_BYTES (Config::ring_bytes) = %llu is more than the maximum ring of "
                     "%llu bytes per thread; using the maximum\n",
                     static_cast<unsigned long long>(config.ring_bytes),
                     static_cast<unsigned long long>(kMaxRingBytes));
    }
    const std::uint64_t events = ring_events_for_bytes(config.ring_bytes);
    if (config.ring_bytes <= kMaxRingBytes && events * sizeof(Event) != config.ring_bytes) {
        // Rings are powers of two of events (a slot is an index masked, never a division).
        std::fprintf(stderr,
                     "ringprof: RINGPROF_RING_BYTES (Config::ring_bytes) = %llu is not a power of two of %zu-byte "
                     "events; a thread's ring grows to %llu bytes\n",
                     static_cast<unsigned long long>(config.ring_bytes), sizeof(Event),
                     static_cast<unsigned long long>(events * sizeof(Event)));
    }
    return events;
}

void set_full_ring_policy(OnFull policy) noexcept {
    g_policy.store(static_cast<std::uint8_t>(policy), std::memory_order_relaxed);
}
OnFull full_ring_policy() noexcept { return static_cast<OnFull>(g_policy.load(std::memory_order_relaxed)); }

void drainer_started() noexcept {
    static std::once_flag handler;
    std::call_once(handler, [] { ::pthread_atfork(nullptr, nullptr, forget_drainer_in_child); });
    g_drainer_alive.store(true, std::memory_order_release);
}
void drainer_stopped() noexcept {
    g_drainer_alive.store(false, std::memory_order_release);
    ring_doorbell();
}
void drainer_pass_done() noexcept { g_drainer_passes.fetch_add(1, std::memory_order_release); }
std::uint64_t drainer_passes() noexcept { return g_drainer_passes.load(std::memory_order_acquire); }

std::uint32_t doorbell() noexcept { return g_bell.load(std::memory_order_seq_cst); }

void sleep_until_rung(std::uint32_t seen, std::chrono::microseconds timeout) noexcept {
    g_drainer_sleeping.store(true, std::memory_order_seq_cst);
    if (g_bell.load(std::memory_order_seq_cst) == seen) {
        const auto us = timeout.count();
        const timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
        futex(&g_bell, FUTEX_WAIT_PRIVATE, seen, &ts);
    }
    g_drainer_sleeping.store(false, std::memory_order_relaxed);
}

void ring_doorbell() noexcept {
    g_bell.fetch_add(1, std::memory_order_seq_cst);
    if (g_drainer_sleeping.load(std::memory_order_seq_cst)) futex(&g_bell, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

void never_wait_on_this_thread() noexcept { t_never_wait = true; }

namespace {
RingSegment* map_segment(std::uint64_t capacity, int flags) noexcept {
    const std::uint64_t slot_bytes = capacity * sizeof(Event);
    void* p =
        ::mmap(nullptr, slot_bytes + kHeaderBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    auto* s = new (static_cast<char*>(p) + slot_bytes) RingSegment();
    s->slots = static_cast<Event*>(p);
    s->capacity = capacity;
    return s;
}
}  // namespace

std::uint64_t next_segment_capacity(std::uint64_t capacity, std::uint64_t max_capacity) noexcept {
    return std::min(max_capacity, std::max(capacity * 4, kHotSegmentBytes / sizeof(Event)));
}

// Faulted in by writing each page once, not with MAP_POPULATE or MADV_POPULATE_WRITE: those hold
// the process's mmap lock while they zero the pages (about 1 ms per 4 MiB), and a producer mapping
// its own segment meanwhile (grow_on_this_thread, which needs that lock) waited for all of it, a
// `ringprof.grow` of milliseconds. A page fault takes only the lock of its own mapping. Measured
// (bench_growth, a 4 MiB mmap beside a thread preparing segments): p99 17 ms with MAP_POPULATE,
// tens of microseconds written page by page.
RingSegment* allocate_segment(std::uint64_t capacity) noexcept {
    RingSegment* s = map_segment(capacity, 0);
    if (s == nullptr) return nullptr;
    auto* bytes = reinterpret_cast<volatile char*>(s->slots);  // nobody else has it yet
    for (std::uint64_t at = 0; at < capacity * sizeof(Event); at += kPageBytes) bytes[at] = 0;
    return s;
}

// Faulting 4 MiB in at once would cost the producer about a millisecond (zeroing 1,024 pages);
// faulted as written, each page costs about a microsecond, once per 128 empty scopes.
RingSegment* allocate_segment_unfaulted(std::uint64_t capacity) noexcept { return map_segment(capacity, 0); }

// In pieces: unmapping frees the pages under the mmap lock, which a producer growing its ring
// at the same moment needs; one piece at a time, it waits for one piece (kUnmapPieceBytes).
void free_segment(RingSegment* segment) noexcept {
    if (segment == nullptr) return;
    const std::uint64_t bytes = segment->capacity * sizeof(Event) + kHeaderBytes;
    char* mapping = reinterpret_cast<char*>(segment->slots);
    segment->~RingSegment();
    for (std::uint64_t at = 0; at < bytes; at += kUnmapPieceBytes) {
        ::munmap(mapping + at, std::min(kUnmapPieceBytes, bytes - at));
    }
}

namespace {
void refill_hot_segments_with(std::uint64_t capacity, int wanted, RingSegment* (*allocate)(std::uint64_t)) noexcept {
    if (!g_prepare_ahead.load(std::memory_order_relaxed))
        wanted = 0;
    else
        wanted = std::clamp(wanted, kBaseHotSegments, kMaxHotSegments);
    for (int i = 0; i < kMaxHotSegments; ++i) {
        std::atomic<RingSegment*>& slot = g_hot[static_cast<std::size_t>(i)];
        if (i >= wanted) {
            if (slot.load(std::memory_order_acquire) != nullptr)
                free_segment(slot.exchange(nullptr, std::memory_order_acq_rel));
            continue;
        }
        if (slot.load(std::memory_order_acquire) != nullptr) continue;
        RingSegment* s = allocate(capacity);
        if (s == nullptr) return;
        RingSegment* expected = nullptr;
        if (!slot.compare_exchange_strong(expected, s, std::memory_order_acq_rel)) free_segment(s);
    }
}
}  // namespace

void refill_hot_segments(std::uint64_t capacity, int wanted) noexcept {
    refill_hot_segments_with(capacity, wanted, allocate_segment);
}

void stock_hot_segments_unfaulted(std::uint64_t capacity, int wanted) noexcept {
    refill_hot_segments_with(capacity, wanted, allocate_segment_unfaulted);
}

void prefault_hot_segments() noexcept {
    // Each segment still in the pool is replaced by a faulted one (a producer may take one at any
    // moment, so its pages are never written here); the pool is never empty meanwhile.
    for (auto& slot : g_hot) {
        RingSegment* s = slot.load(std::memory_order_acquire);
        if (s == nullptr) continue;
        RingSegment* faulted = allocate_segment(s->capacity);
        if (faulted == nullptr) return;
        free_segment(slot.exchange(faulted, std::memory_order_acq_rel));
    }
}

void prepare_segments_ahead(bool on) noexcept {
    g_prepare_ahead.store(on, std::memory_order_relaxed);
    if (!on) {
        for (auto& slot : g_hot) free_segment(slot.exchange(nullptr, std::memory_order_acq_rel));
    }
}
int hot_segments_ready() noexcept {
    int ready = 0;
    for (const auto& slot : g_hot) ready += slot.load(std::memory_order_acquire) != nullptr ? 1 : 0;
    return ready;
}

const Site& growth_site() noexcept { return kGrowSite; }
bool segments_prepared_ahead() noexcept { return g_prepare_ahead.load(std::memory_order_relaxed); }

void forget_hot_segments_after_fork() noexcept {
    for (auto& slot : g_hot) free_segment(slot.exchange(nullptr, std::memory_order_relaxed));
}

void count_ringless_drop() noexcept { g_ringless_drops.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t ringless_drops() noexcept { return g_ringless_drops.load(std::memory_order_relaxed); }

// ---------------------------------------------------------------- Ring's out-of-line half

bool Ring::refresh_limit(std::uint64_t h, std::uint64_t need) noexcept {
    const std::uint64_t cap = mask_ + 1;
    const std::uint64_t t = std::max(tail_.load(std::memory_order_acquire), seg_->start);
    const std::uint64_t fill = h + need - t;
    if (fill > cap) {
        set_limit(t + cap);
        return false;
    }
    if (fill * kWakeFillDivisor <= cap) {
        // Below a quarter: the fast path runs to the quarter mark, and crossing it wakes again.
        fill_woken_ = false;
        set_limit(t + cap / kWakeFillDivisor);
    } else {
        if (!fill_woken_) {
            fill_woken_ = true;
            ring_doorbell();
        }
        set_limit(t + cap);
    }
    return true;
}

void Ring::switch_to(RingSegment* next, std::uint64_t h) noexcept {
    next->start = h;
    next->next.store(nullptr, std::memory_order_relaxed);
    seg_->next.store(next, std::memory_order_release);
    seg_ = next;
    slots_ = next->slots;
    mask_ = next->capacity - 1;
    point_cursor_at(h);
    capacity_.store(next->capacity, std::memory_order_relaxed);
    fill_woken_ = false;
}

bool Ring::move_to_bigger_segment(std::uint64_t h, std::uint64_t need) noexcept {
    RingSegment* next = spare_.exchange(nullptr, std::memory_order_acq_rel);
    const bool can_grow = mask_ + 1 < max_capacity_ && free_segment_ != nullptr;
    if (next == nullptr && can_grow) next = take_hot_segment(max_capacity_);
    if (next == nullptr) return can_grow && map_segment_ != nullptr && grow_on_this_thread(h, need);
    switch_to(next, h);
    return refresh_limit(h, need);
}

// No segment ready: the drainer may be one runnable thread among many on few cores, so waiting
// for it could take milliseconds; one mmap takes microseconds. The time it took is recorded as
// a `ringprof.grow` scope at the start of the new segment.
bool Ring::grow_on_this_thread(std::uint64_t h, std::uint64_t need) noexcept {
    const std::uint64_t begin = slow_ticks();
    RingSegment* next = map_segment_(next_segment_capacity(mask_ + 1, max_capacity_));
    if (next == nullptr) return false;
    switch_to(next, h);
    const std::uint64_t end = slow_ticks();
    if (!refresh_limit(h, need + kOwnScopeEvents)) return refresh_limit(h, need);
    write_own_scope(*this, kGrowSite, begin, end);
    add(growths_, 1);
    add(growth_ticks_, end - begin);
    return true;
}

bool Ring::make_room(std::uint64_t n) noexcept {
    take_ends_made_elsewhere();
    const std::uint64_t need = open_scopes() + n;
    const bool room = find_room(need);
    // A record beside a refused scope gets room for itself alone: Begins stay refused.
    if (suppressed_ != 0) set_limit(room ? head() + need : 0);
    return room;
}

bool Ring::admit(std::uint64_t n) noexcept {
    take_ends_made_elsewhere();
    return suppressed_ == 0 && make_room(n);
}

void Ring::take_ends_made_elsewhere() noexcept {
    const std::uint64_t ended = ended_elsewhere_.load(std::memory_order_acquire);
    if (ended != ended_taken_) {
        // Their room is given back through the limit, not the room: while a refused scope is
        // open the room stays 0, and the next set_limit() counts the room from the lower mark.
        limit_ -= std::min(ended - ended_taken_, open_scopes());
        ended_taken_ = ended;
    }
    const std::uint64_t refused = refused_ended_elsewhere_.load(std::memory_order_acquire);
    if (refused != refused_taken_) {
        suppressed_ -= std::min(refused - refused_taken_, suppressed_);
        refused_taken_ = refused;
    }
}

std::uint64_t Ring::closings_outstanding() noexcept {
    take_ends_made_elsewhere();
    return open_scopes() + suppressed_;
}

bool Ring::find_room(std::uint64_t need) noexcept {
    const std::uint64_t h = head();
    if (refresh_limit(h, need)) return true;
    if (move_to_bigger_segment(h, need)) return true;
    ring_doorbell();
    // Below its maximum a ring that could not grow has no memory to be had: refused, counted.
    if (mask_ + 1 < max_capacity_ && map_segment_ != nullptr) return false;
    return wait_for_room(need);
}

bool Ring::wait_for_room(std::uint64_t need) noexcept {
    const std::uint64_t need_with_wait = need + kOwnScopeEvents;
    if (full_ring_policy() != OnFull::Wait || t_never_wait || !drained() || need_with_wait > mask_ + 1) {
        return false;
    }
    if (!g_drainer_alive.load(std::memory_order_acquire)) return false;
    std::uint64_t passes = g_drainer_passes.load(std::memory_order_acquire);
    if (passes == t_gave_up_at) return false;
    const std::uint64_t begin = slow_ticks();
    auto last_progress = std::chrono::steady_clock::now();
    for (int spins = 0;; ++spins) {
        const std::uint64_t h = head();
        if (refresh_limit(h, need_with_wait) || move_to_bigger_segment(h, need_with_wait)) break;
        if (!g_drainer_alive.load(std::memory_order_acquire) || !drained()) return false;
        if (spins < kSpins) {
            cpu_relax();
            continue;
        }
        ::sched_yield();
        const std::uint64_t now_passes = g_drainer_passes.load(std::memory_order_acquire);
        const auto now = std::chrono::steady_clock::now();
        if (now_passes != passes) {
            passes = now_passes;
            last_progress = now;
        } else if (now - last_progress > kStalledDrainer) {
            t_gave_up_at = passes;
            return false;
        }
        if ((spins & 63) == 0) ring_doorbell();
    }
    const std::uint64_t end = slow_ticks();
    write_own_scope(*this, kWaitSite, begin, end);
    add(waits_, 1);
    add(wait_ticks_, end - begin);
    return true;
}

void Ring::free_segments() noexcept {
    if (free_segment_ == nullptr) return;
    RingSegment* s = read_seg_;
    while (s != nullptr) {
        RingSegment* next = s->next.load(std::memory_order_acquire);
        free_segment_(s);
        s = next;
    }
    free_segment_(spare_.exchange(nullptr, std::memory_order_acq_rel));
}

}  // namespace ringprof::detail
