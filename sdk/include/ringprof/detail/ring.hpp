// A bounded single-producer/single-consumer ring of Events, one per recording thread.
//
// The producer owns `head_` and keeps a stale copy of the consumer's `tail_`, so the common
// case touches only its own cache line and publishes with one release store (a plain mov on
// x86). The consumer (the drainer thread) owns `tail_` on a separate line.
//
// Scopes are admitted whole: a Begin is written only if the ring also has room for its End and
// for the End of every scope already open on this thread (`open_`). So an End never has to be
// dropped. Once a Begin is refused, every scope nested in the refused one is refused too
// (`suppressed_`), even if the drainer frees room meanwhile: a child never surfaces under the
// wrong parent. A refused scope costs its caller a counter bump.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ringprof/detail/clock.hpp"
#include "ringprof/detail/event.hpp"

namespace ringprof::detail {

inline constexpr std::size_t kCacheLine = 64;

class Ring {
public:
    // `slots` is caller-owned memory of `capacity` events; capacity is a power of two.
    Ring(Event* slots, std::uint64_t capacity) noexcept
        : slots_(slots), mask_(capacity - 1), capacity_(capacity) {}
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;

    // ---- producer side (the owning thread only) ----

    // Writes a Begin if the whole scope fits; false (and one drop counted) otherwise. A refused
    // scope must be closed with end_refused().
    bool try_begin(std::uint64_t tag) noexcept {
        const std::uint64_t h = head_.load(std::memory_order_relaxed);
        if (suppressed_ != 0 || !fits(h, open_ + 2)) return refuse_scope();
        Event& e = slots_[h & mask_];
        e.tag = tag;
        e.tsc = read_ticks();  // after the room check: a refused Begin never reads the clock
        head_.store(h + 1, std::memory_order_release);
        ++open_;
        return true;
    }

    // Always fits: room for it was reserved when the matching Begin was admitted.
    void end(std::uint64_t tag, std::uint64_t tsc) noexcept {
        const std::uint64_t h = head_.load(std::memory_order_relaxed);
        slots_[h & mask_] = Event{tsc, tag};
        head_.store(h + 1, std::memory_order_release);
        --open_;
    }

    // Closes a scope that try_begin or try_open refused.
    void end_refused() noexcept { --suppressed_; }

    // A record of `n` events that is not a scope (gauge, context capture): written only if it
    // fits beside the reserved Ends; false (counted as dropped) otherwise.
    bool try_write(const Event* events, std::uint64_t n) noexcept {
        const std::uint64_t h = head_.load(std::memory_order_relaxed);
        if (!fits(h, open_ + n)) return refuse();
        publish(h, events, n);
        return true;
    }

    // A scope-like record of `n` events (a step, an adopted context, a signature scope) that
    // one later `end()` closes, or `end_refused()` if this returns false.
    bool try_open(const Event* events, std::uint64_t n) noexcept {
        const std::uint64_t h = head_.load(std::memory_order_relaxed);
        if (suppressed_ != 0 || !fits(h, open_ + n + 1)) return refuse_scope();
        publish(h, events, n);
        ++open_;
        return true;
    }

    std::uint64_t open_scopes() const noexcept { return open_; }

    // ---- consumer side (the drainer only) ----

    // Events in [tail(), readable_head()) may be read until `release()` moves the tail past them.
    std::uint64_t readable_head() const noexcept { return head_.load(std::memory_order_acquire); }
    std::uint64_t tail() const noexcept { return tail_.load(std::memory_order_relaxed); }
    const Event& at(std::uint64_t index) const noexcept { return slots_[index & mask_]; }
    void release(std::uint64_t new_tail) noexcept { tail_.store(new_tail, std::memory_order_release); }

    // ---- either side ----
    std::uint64_t capacity() const noexcept { return capacity_; }
    std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

    // Only while no thread produces into the ring and no drainer reads it (it is pooled).
    void reset(std::uint64_t open_scopes = 0) noexcept {
        head_.store(0, std::memory_order_relaxed);
        tail_.store(0, std::memory_order_relaxed);
        cached_tail_ = 0;
        open_ = open_scopes;
        suppressed_ = 0;
        dropped_.store(0, std::memory_order_relaxed);
    }

private:
    bool fits(std::uint64_t h, std::uint64_t need) noexcept {
        if (h - cached_tail_ + need <= capacity_) return true;
        cached_tail_ = tail_.load(std::memory_order_acquire);
        return h - cached_tail_ + need <= capacity_;
    }
    bool refuse_scope() noexcept {
        ++suppressed_;
        return refuse();
    }
    bool refuse() noexcept {
        // Only this thread writes the counter, so a load and a store are enough (no RMW).
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return false;
    }
    void publish(std::uint64_t h, const Event* events, std::uint64_t n) noexcept {
        for (std::uint64_t i = 0; i < n; ++i) slots_[(h + i) & mask_] = events[i];
        head_.store(h + n, std::memory_order_release);
    }

    alignas(kCacheLine) std::atomic<std::uint64_t> head_{0};
    std::uint64_t cached_tail_ = 0;
    std::uint64_t open_ = 0;
    std::uint64_t suppressed_ = 0;  // refused scopes still open on this thread
    Event* const slots_;
    const std::uint64_t mask_;
    const std::uint64_t capacity_;
    std::atomic<std::uint64_t> dropped_{0};

    // Alone on its line: the class's alignment pads whatever follows a Ring to the next line.
    alignas(kCacheLine) std::atomic<std::uint64_t> tail_{0};
};

}  // namespace ringprof::detail
