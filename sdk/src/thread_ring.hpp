// A ring plus what the drainer needs to know about the thread that writes it.
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
    explicit ThreadRing(std::uint64_t capacity);
    ~ThreadRing();
    ThreadRing(const ThreadRing&) = delete;
    ThreadRing& operator=(const ThreadRing&) = delete;

    Ring& ring() noexcept { return ring_; }
    std::uint64_t capacity() const noexcept { return ring_.capacity(); }

    // Set by the owning thread when it exits; the drainer then drains to the end and recycles.
    void retire() noexcept { retired_.store(true, std::memory_order_release); }
    bool retired() const noexcept { return retired_.load(std::memory_order_acquire); }

    // Called on the owning thread when it takes the ring from the pool.
    void claim(std::uint32_t tid, std::string thread_name, std::uint64_t serial);

    std::uint32_t tid() const noexcept { return tid_; }
    std::uint64_t serial() const noexcept { return serial_; }  // unique per claimed thread
    std::string thread_name() const;
    void set_thread_name(std::string name);

private:
    std::unique_ptr<Event[]> slots_;  // allocated and pre-faulted with the ring
    Ring ring_;
    std::atomic<bool> retired_{false};
    std::uint32_t tid_ = 0;
    std::uint64_t serial_ = 0;
    mutable std::mutex name_mutex_;  // names change rarely; never taken on the hot path
    std::string name_;
};

}  // namespace ringprof::detail
