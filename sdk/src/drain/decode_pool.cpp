#include "drain/decode_pool.hpp"

#include <cstdio>
#include <system_error>

#include "drain/thread_role.hpp"
#include "process/fork_gate.hpp"
#include "record/ring_room.hpp"

namespace ringprof::detail {

void DecodePool::run(std::size_t shares, const std::function<void(std::size_t)>& share) {
    if (shares <= 1) {
        if (shares == 1) share(0);
        return;
    }
    start_helpers(shares - 1);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &share;
        shares_ = shares;
        next_share_.store(0, std::memory_order_relaxed);
        ++generation_;
        running_ = 1;  // this thread
    }
    work_.notify_all();
    take_shares();
    ForkGateBlocked waiting;  // on the helpers: a fork does not wait for this thread
    std::unique_lock<std::mutex> lock(mutex_);
    --running_;
    // Every share is claimed (this thread ran out of them); a helper still inside one finishes it.
    done_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;  // a helper waking only now takes no part
}

void DecodePool::take_shares() {
    const std::function<void(std::size_t)>* job = nullptr;
    std::size_t shares = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job = job_;
        shares = shares_;
    }
    for (;;) {
        const std::size_t k = next_share_.fetch_add(1, std::memory_order_relaxed);
        if (k >= shares) return;
        (*job)(k);
    }
}

void DecodePool::start_helpers(std::size_t wanted) {
    while (threads_.size() < wanted) {
        try {
            GatedThread helper([this] { helper_loop(); });
            std::lock_guard<std::mutex> lock(mutex_);
            threads_.push_back(std::move(helper));
        } catch (const std::system_error& e) {
            // The shares it would have taken are taken by the threads there are.
            static std::atomic<bool> said{false};
            if (!said.exchange(true)) {
                std::fprintf(stderr, "ringprof: cannot start a drainer helper thread (%s): fewer threads decode\n",
                             e.what());
            }
            return;
        }
    }
}

void DecodePool::helper_loop() {
    take_role(ThreadRole::Drainer);
    never_wait_on_this_thread();
    std::uint64_t seen = 0;
    for (;;) {
        {
            ForkGateBlocked asleep;  // destroyed after the lock: it may wait for a fork
            std::unique_lock<std::mutex> lock(mutex_);
            work_.wait(lock, [&] { return stopping_ || (job_ != nullptr && generation_ != seen); });
            if (stopping_) return;
            seen = generation_;
            ++running_;
        }
        take_shares();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (--running_ == 0) done_.notify_all();
        }
        fork_pause_point();
    }
}

void DecodePool::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (threads_.empty()) return;
        stopping_ = true;
    }
    work_.notify_all();
    for (GatedThread& t : threads_) t.join();  // only this thread changes threads_
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.clear();
    stopping_ = false;
}

std::size_t DecodePool::helpers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_.size();
}

}  // namespace ringprof::detail
