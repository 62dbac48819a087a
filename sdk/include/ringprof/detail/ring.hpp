// A single-producer/single-consumer ring of Events, one per recording thread, that can grow.
//
// The producer owns `cursor_`, the slot its next event goes to, and a `room_`: how many events
// it may still write without looking at the consumer, counted beside the Ends it has promised (a
// Begin takes two: itself and its End; an End takes none). The fast path is one compare and one
// subtract of the room; it writes at the cursor and publishes the event with one release store
// of the moved cursor (a plain mov on x86). The head index is not stored per event: it is `lap_`
// (the index of the first slot in the current lap, changed only when the cursor wraps) plus the
// cursor's offset. On a wrap the cursor is stored before the lap, and the consumer loads the lap
// before the cursor, so a torn pair can only put the head a whole lap too low, behind the tail,
// which reads as nothing new yet. (Computing the slot from an index made each event's address
// wait on the previous event's store of the index: 4% of an empty scope, bench_overhead. Storing
// the index beside the cursor, or comparing an index against a limit instead of counting room,
// cost instructions per event or per scope; docs/perf/overhead.md has the figures.)
// Running out of room takes the out-of-line make_room(), which re-reads the consumer's `tail_`
// (on its own line), wakes the drainer once per crossing of a quarter-full mark, moves on to a
// bigger segment, and, only when the ring has reached its maximum, applies the full-ring policy
// (ring_room.cpp): wait for room, recorded as a `ringprof.wait` scope, or refuse.
//
// Memory is a chain of segments (RingSegment). A producer moves to the next segment with one
// pointer exchange when the current one is full, and records the index where the new one
// starts; the consumer reads the old segment up to that index, then follows the link and frees
// the old one. A record never straddles two segments. So a thread that records little keeps a
// small first segment, and one that proves hot grows. The next segment is normally one the
// drainer prepared (pre-faulted, offered to this ring or taken from a shared pool); when none
// is ready the producer maps one itself, recorded as a `ringprof.grow` scope, rather than wait
// for a drainer that may not be scheduled for milliseconds (more runnable threads than cores).
//
// Scopes are admitted whole: a Begin is written only if the ring also has room for its End and
// for the End of every scope already open on this thread (`reserved()`). So an End never has to
// be dropped. Once a Begin is refused, every scope nested in the refused one is refused too
// (`suppressed_`), even if the drainer frees room meanwhile: a child never surfaces under the
// wrong parent. While one is open, `room_` stays 0, so the Begin's one room compare also sends
// it to the check of `suppressed_`. A refused scope costs its caller a counter bump.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ringprof/detail/clock.hpp"
#include "ringprof/detail/event.hpp"

namespace ringprof::detail {

inline constexpr std::size_t kCacheLine = 64;
// How far ahead of its cursor a Begin asks for the line it will write next. A line the producer
// comes back to was last read by the drainer on another core, or has left for L3 a lap ago, so
// the store that meets it would wait for it. Four lines are eight empty scopes ahead, time for
// the line to arrive; at a segment's last four lines the prefetch points past it, which cannot
// fault. It costs one instruction per scope and saves about 0.02x of the rdtsc pair with one
// producer (bench_overhead, paired, fastest of 5 in alternating runs; the runs are in
// docs/perf/overhead.md).
inline constexpr std::size_t kWriteAhead = 4 * kCacheLine;

// What a ring's producer counted: refused records, waits for room and growths it made itself
// (with their ticks). The drainer reports the difference from when it took the ring over.
struct RingCounts {
    std::uint64_t dropped = 0;
    std::uint64_t waits = 0;
    std::uint64_t wait_ticks = 0;
    std::uint64_t growths = 0;
    std::uint64_t growth_ticks = 0;

    RingCounts operator-(const RingCounts& o) const noexcept {
        return {dropped - o.dropped, waits - o.waits, wait_ticks - o.wait_ticks, growths - o.growths,
                growth_ticks - o.growth_ticks};
    }
    RingCounts& operator+=(const RingCounts& o) noexcept {
        dropped += o.dropped;
        waits += o.waits;
        wait_ticks += o.wait_ticks;
        growths += o.growths;
        growth_ticks += o.growth_ticks;
        return *this;
    }
};

// Events [start, start + capacity) of a ring's index space, at most, live here.
struct RingSegment {
    Event* slots = nullptr;
    std::uint64_t capacity = 0;               // a power of two
    std::uint64_t start = 0;                  // ring index of its first event; set by the producer on switching
    std::atomic<RingSegment*> next{nullptr};  // set (release) by the producer when it moves on
};

class Ring {
public:
    // Frees a segment the consumer has read to its end (null: segments are not owned).
    using SegmentFree = void (*)(RingSegment*) noexcept;
    // Maps a segment of `capacity` events for the producer's own growth, or null.
    using SegmentMap = RingSegment* (*)(std::uint64_t capacity) noexcept;

    // A ring starting in `first`; `max_capacity` bounds the segments it may move on to. Without
    // `map_segment` its producer grows only into segments handed to it.
    Ring(RingSegment* first, std::uint64_t max_capacity, SegmentFree free_segment,
         SegmentMap map_segment = nullptr) noexcept
        : seg_(first),
          slots_(first->slots),
          mask_(first->capacity - 1),
          max_capacity_(max_capacity),
          free_segment_(free_segment),
          map_segment_(map_segment),
          capacity_(first->capacity),
          read_seg_(first) {
        point_cursor_at(0);
    }
    // A fixed ring in caller-owned memory of `capacity` events (a power of two).
    Ring(Event* slots, std::uint64_t capacity) noexcept
        : seg_(&own_),
          slots_(slots),
          mask_(capacity - 1),
          max_capacity_(capacity),
          capacity_(capacity),
          read_seg_(&own_) {
        own_.slots = slots;
        own_.capacity = capacity;
        point_cursor_at(0);
    }
    // A ring with no slots that never has room: what a thread without a ring points at (t_ring),
    // so that the markers' one room check also sends its first marker to the slow path.
    constexpr Ring() noexcept
        : seg_(&own_), slots_(nullptr), mask_(0), max_capacity_(0), capacity_(0), read_seg_(&own_) {}
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring() { free_segments(); }

    // ---- producer side (the owning thread only) ----

    // The inline markers' only check: `n` events fit without make_room(). False while a refused
    // scope is open, and always for the no-ring sentinel.
    bool has_room(std::uint64_t n) const noexcept { return room_ >= n; }

    // Writes a Begin if the whole scope fits; false (and one drop counted) otherwise. A refused
    // scope must be closed with end_refused().
    bool try_begin(std::uint64_t tag) noexcept {
        if (__builtin_expect(!has_room(2), 0)) {
            if (!admit(2)) return refuse_scope();
        }
        begin(tag);
        return true;
    }
    // A Begin that has_room(2) admitted.
    void begin(std::uint64_t tag) noexcept {
        // The cursor is read after make_room(): a recorded wait may have written.
        Event* e = cursor_.load(std::memory_order_relaxed);
        __builtin_prefetch(reinterpret_cast<const char*>(e) + kWriteAhead, 1);
        e->tag = tag;
        store_ticks(&e->tsc);  // after the room check: a refused Begin never reads the clock
        advance(e);
        room_ -= 2;
    }

    // Always fits: room for it was reserved when the matching Begin was admitted.
    void end(std::uint64_t tag, std::uint64_t tsc) noexcept {
        Event* e = cursor_.load(std::memory_order_relaxed);
        *e = Event{tsc, tag};
        advance(e);
    }

    // An End stamped now.
    void end_now(std::uint64_t tag) noexcept {
        Event* e = cursor_.load(std::memory_order_relaxed);
        store_ticks(&e->tsc);
        e->tag = tag;
        advance(e);
    }

    // Closes a scope that try_begin or try_open refused.
    void end_refused() noexcept { --suppressed_; }

    // Scopes this ring's thread opened that another thread may still end (a coroutine resumed
    // elsewhere holds them): that thread's end touches this ring, so it must outlive its own
    // thread, unused, until none is left.
    std::uint64_t closings_outstanding() noexcept;

    // ---- any thread: a scope of this ring ended on another thread ----
    // Its End never comes here. Counted, and taken by the producer the next time it runs out of
    // room (take_ends_made_elsewhere()): an admitted scope gives back the room kept for its End,
    // a refused one stops holding this thread's later scopes refused. Without this, every
    // hand-over shrank the ring for good, until each Begin was refused.
    // An admitted scope's end also writes a note (EventKind::EndElsewhere) into the ending
    // thread's own ring; `note_lost()` when that ring refused it.
    void end_elsewhere() noexcept { ended_elsewhere_.fetch_add(1, std::memory_order_release); }
    void end_refused_elsewhere() noexcept { refused_ended_elsewhere_.fetch_add(1, std::memory_order_release); }
    void note_lost() noexcept { notes_lost_.fetch_add(1, std::memory_order_release); }
    // Every end made elsewhere since the ring was claimed, admitted or refused.
    std::uint64_t ends_made_elsewhere() const noexcept {
        return ended_elsewhere_.load(std::memory_order_acquire) + refused_ended_elsewhere_.load(std::memory_order_acquire);
    }
    // Of those, the ones the producer has taken (closings_outstanding() counts the rest).
    std::uint64_t ends_taken() const noexcept { return ended_taken_ + refused_taken_; }
    // Notes of ends of this ring's scopes written into other rings since it was claimed: the
    // drainer has every end of this thread's scopes once it has read that many.
    std::uint64_t notes_written_elsewhere() const noexcept {
        return ended_elsewhere_.load(std::memory_order_acquire) - notes_lost_.load(std::memory_order_acquire);
    }

    // A record of `n` events that is not a scope (gauge, context capture): written only if it
    // fits beside the reserved Ends; false (counted as dropped) otherwise.
    bool try_write(const Event* events, std::uint64_t n) noexcept {
        if (!has_room(n) && !make_room(n)) return refuse();
        write(events, n);
        return true;
    }
    // A record that has_room(n) admitted.
    // Published whole, with one store of the cursor after its last event: the consumer reads a
    // record's later events once it sees the first.
    void write(const Event* events, std::uint64_t n) noexcept {
        Event* e = cursor_.load(std::memory_order_relaxed);
        bool wrapped = false;
        for (std::uint64_t i = 0; i < n; ++i) {
            *e = events[i];
            if (++e == slots_end_) {  // n <= capacity: at most one wrap
                e = slots_;
                wrapped = true;
            }
        }
        cursor_.store(e, std::memory_order_release);
        if (wrapped) lap_.store(lap_.load(std::memory_order_relaxed) + mask_ + 1, std::memory_order_release);
        room_ -= n;
    }

    // A scope-like record of `n` events (a step, an adopted context, a signature scope) that
    // one later `end()` closes, or `end_refused()` if this returns false.
    bool try_open(const Event* events, std::uint64_t n) noexcept {
        if (!has_room(n + 1)) {
            if (!admit(n + 1)) return refuse_scope();
        }
        open(events, n);
        return true;
    }
    // A scope-like record that has_room(n + 1) admitted.
    void open(const Event* events, std::uint64_t n) noexcept {
        write(events, n);
        --room_;  // its End
    }

    std::uint64_t open_scopes() const noexcept { return reserved() - head(); }

    // ---- consumer side (the drainer only) ----

    // Events in [tail(), readable_head()) may be read until `release()` moves the tail past them.
    // Stops at the end of the segment being read: once the tail reaches it, next_segment().
    std::uint64_t readable_head() const noexcept {
        const std::uint64_t lap = lap_.load(std::memory_order_acquire);  // before the cursor: see the top
        const Event* cursor = cursor_.load(std::memory_order_acquire);
        // Loaded after the cursor: a cursor in a later segment implies the link is visible.
        const RingSegment* next = read_seg_->next.load(std::memory_order_acquire);
        const Event* slots = read_seg_->slots;
        if (cursor < slots || cursor >= slots + read_seg_->capacity) return next != nullptr ? next->start : tail();
        const std::uint64_t h = lap + static_cast<std::uint64_t>(cursor - slots);
        const std::uint64_t t = tail();
        if (h < t) return t;  // a lap read before a wrap with the cursor after it: nothing new yet
        return next != nullptr && next->start < h ? next->start : h;
    }
    std::uint64_t tail() const noexcept { return tail_.load(std::memory_order_relaxed); }
    const Event& at(std::uint64_t index) const noexcept { return read_seg_->slots[index & (read_seg_->capacity - 1)]; }
    void release(std::uint64_t new_tail) noexcept { tail_.store(new_tail, std::memory_order_release); }
    // At the end of the segment being read and the producer has moved on: frees it and returns
    // true (more events may be readable).
    bool next_segment() noexcept {
        RingSegment* next = read_seg_->next.load(std::memory_order_acquire);
        if (next == nullptr || tail() != next->start) return false;
        RingSegment* done = read_seg_;
        read_seg_ = next;
        if (free_segment_ != nullptr) free_segment_(done);
        return true;
    }
    // Offers the producer a bigger, pre-faulted segment; false if one is already waiting.
    bool offer_segment(RingSegment* s) noexcept {
        RingSegment* expected = nullptr;
        return spare_.compare_exchange_strong(expected, s, std::memory_order_acq_rel);
    }
    bool has_spare() const noexcept { return spare_.load(std::memory_order_acquire) != nullptr; }
    std::uint64_t reading_capacity() const noexcept { return read_seg_->capacity; }
    // A drainer reads this ring (set when it is announced or adopted, cleared when parked):
    // only then may its producer wait for room.
    void set_drained(bool drained) noexcept { drained_.store(drained, std::memory_order_release); }
    bool drained() const noexcept { return drained_.load(std::memory_order_acquire); }

    // ---- either side ----
    // Capacity of the segment the producer writes to now.
    std::uint64_t capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
    std::uint64_t max_capacity() const noexcept { return max_capacity_; }
    std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
    std::uint64_t waits() const noexcept { return waits_.load(std::memory_order_relaxed); }
    std::uint64_t wait_ticks() const noexcept { return wait_ticks_.load(std::memory_order_relaxed); }
    // Segments this ring's producer had to map itself, and the ticks that took.
    std::uint64_t growths() const noexcept { return growths_.load(std::memory_order_relaxed); }
    std::uint64_t growth_ticks() const noexcept { return growth_ticks_.load(std::memory_order_relaxed); }
    RingCounts counts() const noexcept { return {dropped(), waits(), wait_ticks(), growths(), growth_ticks()}; }
    // Segments in the chain (1 unless the producer moved on and the consumer has not caught up).
    bool single_segment() const noexcept { return read_seg_ == seg_ && !has_spare(); }

    // Only while no thread produces into the ring and no drainer reads it (it is pooled).
    void reset(std::uint64_t open_scopes = 0) noexcept {
        tail_.store(0, std::memory_order_relaxed);
        seg_->start = 0;
        point_cursor_at(0);
        limit_ = open_scopes;  // the next record takes make_room()
        room_ = 0;
        fill_woken_ = false;
        suppressed_ = 0;
        ended_elsewhere_.store(0, std::memory_order_relaxed);
        refused_ended_elsewhere_.store(0, std::memory_order_relaxed);
        notes_lost_.store(0, std::memory_order_relaxed);
        ended_taken_ = 0;
        refused_taken_ = 0;
        dropped_.store(0, std::memory_order_relaxed);
        waits_.store(0, std::memory_order_relaxed);
        wait_ticks_.store(0, std::memory_order_relaxed);
        growths_.store(0, std::memory_order_relaxed);
        growth_ticks_.store(0, std::memory_order_relaxed);
    }

private:
    // Out of line (sdk/src/record/ring_room.cpp): true once `n` more events fit from the current
    // head (which a recorded wait may have advanced) beside the Ends of open scopes; false means
    // refuse. Leaves no room while a refused scope is open.
    bool make_room(std::uint64_t n) noexcept;
    // A scope-like record of `n` events, its End included: false while a refused scope is open.
    bool admit(std::uint64_t n) noexcept;
    void take_ends_made_elsewhere() noexcept;
    bool find_room(std::uint64_t need) noexcept;
    bool refresh_limit(std::uint64_t h, std::uint64_t need) noexcept;
    bool move_to_bigger_segment(std::uint64_t h, std::uint64_t need) noexcept;
    void switch_to(RingSegment* next, std::uint64_t h) noexcept;
    bool grow_on_this_thread(std::uint64_t h, std::uint64_t need) noexcept;
    bool wait_for_room(std::uint64_t need) noexcept;
    // Counts one recorded wait or growth (only this thread writes them: no RMW).
    static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n) noexcept {
        counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    void free_segments() noexcept;

    bool refuse_scope() noexcept {
        ++suppressed_;
        no_room();  // every Begin takes the slow path, which refuses it, until this one closes
        return refuse();
    }
    bool refuse() noexcept {
        add(dropped_, 1);
        return false;
    }
    // The ring index of the next event (producer side).
    std::uint64_t head() const noexcept {
        return lap_.load(std::memory_order_relaxed) +
               static_cast<std::uint64_t>(cursor_.load(std::memory_order_relaxed) - slots_);
    }
    // Head plus one End per open scope: what the room is counted from.
    std::uint64_t reserved() const noexcept { return limit_ - room_; }
    // The fast path may write up to `limit` (at least reserved()) before the next make_room().
    void set_limit(std::uint64_t limit) noexcept {
        const std::uint64_t r = reserved();
        limit_ = limit > r ? limit : r;
        room_ = limit_ - r;
    }
    void no_room() noexcept { set_limit(0); }
    // One event written at `e`, the cursor: moves on and so publishes it to the consumer.
    void advance(Event* e) noexcept {
        Event* next = e + 1;
        if (__builtin_expect(next != slots_end_, 1)) {
            cursor_.store(next, std::memory_order_release);
        } else {  // back to the first slot: the cursor first, then the lap (see the top)
            cursor_.store(slots_, std::memory_order_release);
            lap_.store(lap_.load(std::memory_order_relaxed) + mask_ + 1, std::memory_order_release);
        }
    }
    // After the segment being written changed (or was reset): the cursor before the lap, as on a
    // wrap, and the consumer tells segments apart by the cursor's address.
    void point_cursor_at(std::uint64_t h) noexcept {
        slots_end_ = slots_ + mask_ + 1;
        cursor_.store(slots_ + (h & mask_), std::memory_order_release);
        lap_.store(h & ~mask_, std::memory_order_release);
    }

    alignas(kCacheLine) std::atomic<Event*> cursor_{nullptr};  // where the next event goes
    std::atomic<std::uint64_t> lap_{0};                        // ring index of slots_[0] in the cursor's lap
    // Events the fast path may still write (a Begin takes two: itself and its End) before
    // make_room() looks at the consumer again. 0 for the first record, and while suppressed_.
    std::uint64_t room_ = 0;
    std::uint64_t limit_ = 0;       // the index room_ counts up to: room_ = limit_ - reserved()
    std::uint64_t suppressed_ = 0;  // refused scopes still open on this thread
    Event* slots_end_ = nullptr;    // slots_ + mask_ + 1
    RingSegment* seg_;              // the segment being written
    Event* slots_;
    std::uint64_t mask_;
    bool fill_woken_ = false;  // the drainer was woken since the ring last fell below a quarter
    const std::uint64_t max_capacity_;
    const SegmentFree free_segment_ = nullptr;
    const SegmentMap map_segment_ = nullptr;
    std::atomic<std::uint64_t> dropped_{0};
    std::atomic<std::uint64_t> waits_{0};
    std::atomic<std::uint64_t> wait_ticks_{0};
    std::atomic<std::uint64_t> growths_{0};
    std::atomic<std::uint64_t> growth_ticks_{0};
    std::atomic<std::uint64_t> capacity_;
    std::atomic<RingSegment*> spare_{nullptr};  // offered by the drainer, taken by the producer
    RingSegment own_;                           // the segment of a fixed ring

    // Alone on its line: the class's alignment pads whatever follows a Ring to the next line.
    alignas(kCacheLine) std::atomic<std::uint64_t> tail_{0};
    RingSegment* read_seg_;  // the segment being read
    // Scopes of this ring ended on other threads, counted from the ring's claim: beside the
    // consumer's tail, off the line the producer writes on every event. The producer's own
    // marks of how many it has taken live there too (read only on its slow path).
    std::atomic<std::uint64_t> ended_elsewhere_{0};
    std::atomic<std::uint64_t> refused_ended_elsewhere_{0};
    std::atomic<std::uint64_t> notes_lost_{0};
    std::uint64_t ended_taken_ = 0;
    std::uint64_t refused_taken_ = 0;
    std::atomic<bool> drained_{false};
};

}  // namespace ringprof::detail
