#include "record/thread_ring.hpp"

#include <new>

#include "record/ring_room.hpp"

namespace ringprof::detail {

namespace {
RingSegment* first_segment(std::uint64_t capacity) {
    // Pre-faulted on the registering (slow) path: a fresh ring never faults inside a marker.
    RingSegment* s = allocate_segment(capacity);
    if (s == nullptr) throw std::bad_alloc();
    return s;
}
}  // namespace

ThreadRing::ThreadRing(std::uint64_t first_capacity, std::uint64_t max_capacity)
    : ring_(first_segment(first_capacity), max_capacity, free_segment, allocate_segment_unfaulted),
      first_capacity_(first_capacity) {}

ThreadRing::~ThreadRing() = default;

void ThreadRing::claim(std::uint32_t tid, std::string thread_name, std::uint64_t serial) {
    ring_.reset();
    retired_.store(false, std::memory_order_relaxed);
    ends_due_at_exit_ = 0;
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
