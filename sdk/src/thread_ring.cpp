#include "thread_ring.hpp"

#include <cstring>

namespace ringprof::detail {

namespace {
Event* allocate_prefaulted(std::uint64_t capacity) {
    Event* slots = new Event[capacity];
    // Touch every page now, on the registering (slow) path: a fresh ring must never take a
    // page fault inside a marker.
    std::memset(static_cast<void*>(slots), 0, capacity * sizeof(Event));
    return slots;
}
}  // namespace

ThreadRing::ThreadRing(std::uint64_t capacity)
    : slots_(allocate_prefaulted(capacity)), ring_(slots_.get(), capacity) {}

ThreadRing::~ThreadRing() = default;

void ThreadRing::claim(std::uint32_t tid, std::string thread_name, std::uint64_t serial) {
    ring_.reset();
    retired_.store(false, std::memory_order_relaxed);
    tid_ = tid;
    serial_ = serial;
    set_thread_name(std::move(thread_name));
}

std::string ThreadRing::thread_name() const {
    std::lock_guard<std::mutex> lock(name_mutex_);
    return name_;
}

void ThreadRing::set_thread_name(std::string name) {
    std::lock_guard<std::mutex> lock(name_mutex_);
    name_ = std::move(name);
}

}  // namespace ringprof::detail
