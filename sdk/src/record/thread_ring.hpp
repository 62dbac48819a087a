// A ring plus what the drainer needs to know about the thread that writes it. The ring starts
// in a small segment and may grow (ring_room.hpp); its segments are freed with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "ringprof/detail/ring.hpp"

namespace ringprof::detail {

class ThreadRing {
public:
    // Throws std::bad_alloc if the first segment cannot be had.
    ThreadRing(std::uint64_t first_capacity, std::uint64_t max_capacity);
    explicit ThreadRing(std::uint64_t capacity) : ThreadRing(capacity, capacity) {}  // never grows
    ~ThreadRing();
    ThreadRing(const ThreadRing&) = delete;
    ThreadRing& operator=(const ThreadRing&) = delete;

    Ring& ring() noexcept { return ring_; }
    std::uint64_t capacity() const noexcept { return ring_.capacity(); }
    std::uint64_t first_capacity() const noexcept { return first_capacity_; }
    // Never grown: it can go back to the pool as it is.
    bool reusable() const noexcept { return ring_.single_segment() && ring_.capacity() == first_capacity_; }

    // Set by the owning thread when it exits; the drainer then drains to the end and recycles.
    void retire() noexcept {
        const std::uint64_t outstanding = ring_.closings_outstanding();
        ends_due_at_exit_ = ring_.ends_taken() + outstanding;
        retired_.store(true, std::memory_order_release);
    }
    bool retired() const noexcept { return retired_.load(std::memory_order_acquire); }
    // Retired while other threads held scopes of it (Ring::closings_outstanding()) that have not
    // all ended yet: their ends will touch this ring, so it is neither reused nor freed until then.
    bool held_elsewhere() const noexcept { return ring_.ends_made_elsewhere() < ends_due_at_exit_; }

    // Called on the owning thread when it takes the ring from the pool.
    void claim(std::uint32_t tid, std::string thread_name, std::uint64_t serial);

    std::uint32_t tid() const noexcept { return tid_; }
    std::uint64_t serial() const noexcept { return serial_; }  // unique per claimed thread
    std::string thread_name() const;
    void set_thread_name(std::string name);

private:
    Ring ring_;
    const std::uint64_t first_capacity_;
    std::atomic<bool> retired_{false};
    std::uint64_t ends_due_at_exit_ = 0;  // ends made elsewhere once none is held; before retired_
    std::uint32_t tid_ = 0;
    std::uint64_t serial_ = 0;
    mutable std::mutex name_mutex_;  // names change rarely; never taken on the hot path
    std::string name_;
};

}  // namespace ringprof::detail
