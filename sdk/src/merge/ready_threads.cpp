#include "merge/ready_threads.hpp"

#include <stdexcept>
#include <system_error>

#include "process/quiet_thread.hpp"

namespace ringprof::detail {

ReadyThreads::ReadyThreads(std::size_t count) {
    threads_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        try {
            threads_.push_back(start_quiet_thread([this, i] { serve(i + 1); }));
        } catch (const std::system_error&) {
            break;  // fewer threads: callers size their work by size()
        }
    }
}

ReadyThreads::~ReadyThreads() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    work_.notify_all();
    for (auto& t : threads_) t.join();
}

void ReadyThreads::serve(std::size_t index) {
    std::size_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        work_.wait(lock, [&] { return stop_ || (generation_ != seen && index < tasks_); });
        if (stop_) return;
        seen = generation_;
        const auto& task = *task_;
        lock.unlock();
        std::exception_ptr failed;
        try {
            task(index);
        } catch (...) {
            failed = std::current_exception();
        }
        lock.lock();
        if (failed && !failure_) failure_ = failed;
        if (--running_ == 0) done_.notify_all();
    }
}

void ReadyThreads::run(std::size_t n, const std::function<void(std::size_t)>& task) {
    if (n > size() + 1) throw std::logic_error("ReadyThreads::run: more parts than threads");
    {
        std::lock_guard<std::mutex> lock(mu_);
        task_ = &task;
        tasks_ = n;
        running_ = n;
        failure_ = nullptr;
        ++generation_;
    }
    if (n > 1) work_.notify_all();
    std::exception_ptr failed;
    try {
        if (n > 0) task(0);
    } catch (...) {
        failed = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (failed && !failure_) failure_ = failed;
    if (n > 0 && --running_ == 0) done_.notify_all();
    done_.wait(lock, [&] { return running_ == 0; });
    if (failure_) std::rethrow_exception(failure_);
}

}  // namespace ringprof::detail
