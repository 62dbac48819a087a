#include "merge/background_writer.hpp"

#include <utility>

#include "process/quiet_thread.hpp"

namespace ringprof::detail {

BackgroundWriter::BackgroundWriter(AtomicFile& file) : file_(file) {
    thread_ = start_quiet_thread([this] { run(); });
}

BackgroundWriter::~BackgroundWriter() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void BackgroundWriter::run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        Pending& front = queue_.front();  // a deque's elements stay put while others are pushed
        lock.unlock();
        std::exception_ptr failed;
        try {
            file_.write_at(front.offset, front.text.view());
        } catch (...) {
            failed = std::current_exception();
        }
        front.text.clear();
        lock.lock();
        if (failed && !error_) error_ = failed;
        written_.push_back(std::move(front.text));
        queue_.pop_front();
        changed_.notify_all();
    }
}

void BackgroundWriter::hand_over(std::uint64_t offset, TextBuffer& full) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queue_.size() < kInFlight || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back({offset, std::move(full)});
    if (!written_.empty()) {
        full = std::move(written_.back());
        written_.pop_back();
    } else {
        full = TextBuffer();
    }
    lock.unlock();
    changed_.notify_all();
}

void BackgroundWriter::wait() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queue_.empty() || error_; });
    if (error_) std::rethrow_exception(error_);
}

}  // namespace ringprof::detail
