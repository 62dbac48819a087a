// Work one thread hands to another, as a task system hands a task over: push() on one thread,
// serve() on another gives each item to `take`, in order, until stop() and nothing is left. With
// `max_waiting`, push() waits while that many items wait, which bounds what is alive at once.
// ScopeCourier hands over scopes: each opened on the pushing thread and ended on the serving one.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "ringprof/ringprof.hpp"

namespace ringprof::testing {

template <typename T>
class HandoffQueue {
public:
    explicit HandoffQueue(std::size_t max_waiting = std::numeric_limits<std::size_t>::max())
        : max_waiting_(max_waiting) {}

    void push(T item) {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < max_waiting_; });
        queue_.push_back(std::move(item));
        ready_.notify_one();
    }

    template <typename Take>
    void serve(Take take) {
        for (;;) {
            T item;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [&] { return !queue_.empty() || done_; });
                if (queue_.empty()) return;
                item = std::move(queue_.front());
                queue_.pop_front();
                room_.notify_one();
            }
            take(item);
        }
    }

    void stop() {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
        ready_.notify_all();
    }

private:
    const std::size_t max_waiting_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::condition_variable room_;
    std::deque<T> queue_;
    bool done_ = false;
};

// Ends on the serving thread every scope the opener hands over; `before_each_end` runs there
// just before each end (the worker's own scopes, say).
class ScopeCourier {
public:
    explicit ScopeCourier(std::function<void()> before_each_end = [] {},
                          std::size_t max_waiting = std::numeric_limits<std::size_t>::max())
        : before_each_end_(std::move(before_each_end)), queue_(max_waiting) {}
    void push(std::unique_ptr<detail::Scope> s) { queue_.push(std::move(s)); }
    void serve() {
        queue_.serve([&](std::unique_ptr<detail::Scope>& s) {
            before_each_end_();
            s.reset();  // ends the scope here, on the worker
        });
    }
    void stop() { queue_.stop(); }

private:
    std::function<void()> before_each_end_;
    HandoffQueue<std::unique_ptr<detail::Scope>> queue_;
};

}  // namespace ringprof::testing
