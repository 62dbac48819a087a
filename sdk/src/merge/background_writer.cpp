#include "merge/background_writer.hpp"

#include <utility>

namespace ringprof::detail {

BackgroundWriter::BackgroundWriter(AtomicFile& file) : file_(file) { thread_ = std::thread([this] { run(); }); }

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
        changed_.wait(lock, [&] { return stop_ || has_pending_; });
        if (stop_) return;
        lock.unlock();
        std::exception_ptr failed;
        try {
            file_.write(pending_.view());
        } catch (...) {
            failed = std::current_exception();
        }
        pending_.clear();
        lock.lock();
        if (failed && !error_) error_ = failed;
        has_pending_ = false;
        changed_.notify_all();
    }
}

void BackgroundWriter::hand_over(TextBuffer& full) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !has_pending_; });
    if (error_) std::rethrow_exception(error_);
    std::swap(pending_, full);
    has_pending_ = true;
    lock.unlock();
    changed_.notify_all();
}

void BackgroundWriter::wait() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !has_pending_; });
    if (error_) std::rethrow_exception(error_);
}

}  // namespace ringprof::detail
