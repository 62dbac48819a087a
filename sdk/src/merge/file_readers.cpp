#include "merge/file_readers.hpp"

#include <algorithm>

#include "process/quiet_thread.hpp"

namespace ringprof::detail {

FileReaders::FileReaders(std::size_t files, unsigned threads, Reader read)
    : files_(files), read_(std::move(read)), queues_(files) {
    const std::size_t n = std::min<std::size_t>(std::max(threads, 1u), files);
    ahead_limit_ = ahead_limit(static_cast<unsigned>(std::max<std::size_t>(n, 1)));
    reading_.reserve(n);
    workers_.reserve(n);
    try {
        for (std::size_t i = 0; i < n; ++i) workers_.push_back(start_quiet_thread([this] { work(); }));
    } catch (...) {
        stop_and_join();  // cannot start a thread: stop the ones started, then report it
        throw;
    }
}

FileReaders::~FileReaders() { stop_and_join(); }

void FileReaders::stop_and_join() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    space_.notify_all();
    for (auto& w : workers_)
        if (w.joinable()) w.join();
}

void FileReaders::Outbox::send(FileMessage m) {
    FileReaders& o = owner_;
    std::unique_lock<std::mutex> lock(o.mu_);
    o.space_.wait(lock, [&] {
        if (o.stop_) return true;
        if (file_ == o.consuming_) return o.queues_[file_].size() < kQueued;
        return o.queued_ahead_ < o.ahead_limit_;
    });
    if (o.stop_) throw Stopped{};
    if (file_ != o.consuming_) ++o.queued_ahead_;
    o.queues_[file_].push_back(std::move(m));
    lock.unlock();
    o.data_.notify_all();
}

void FileReaders::work() {
    for (;;) {
        std::size_t file;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (stop_ || next_file_ == files_) return;
            file = next_file_++;
            reading_.push_back(file);
        }
        Outbox out(*this, file);
        FileMessage done;
        try {
            done = read_(file, out);
        } catch (const Stopped&) {
            return;
        } catch (...) {
            done = FileMessage{};
            done.failure = std::current_exception();
        }
        done.kind = FileMessage::Kind::done;
        std::unique_lock<std::mutex> lock(mu_);
        if (stop_) return;
        // The final message may exceed the bound by one: it ends the file.
        queues_[file].push_back(std::move(done));
        reading_.erase(std::find(reading_.begin(), reading_.end(), file));
        if (file != consuming_) finished_.push_back(file);
        lock.unlock();
        data_.notify_all();
    }
}

std::size_t FileReaders::ready_file() const {
    if (!finished_.empty()) return finished_.front();
    // Waiting longer would only stall the workers (no room left ahead) or gain nothing (every file
    // has started, so none will finish sooner for waiting): take the file that holds the most.
    if (reading_.empty() || (queued_ahead_ < ahead_limit_ && next_file_ < files_)) return kNone;
    return *std::max_element(reading_.begin(), reading_.end(),
                             [&](std::size_t a, std::size_t b) { return queues_[a].size() < queues_[b].size(); });
}

std::size_t FileReaders::next_file() {
    std::unique_lock<std::mutex> lock(mu_);
    data_.wait(lock, [&] { return ready_file() != kNone; });
    const std::size_t file = ready_file();
    if (!finished_.empty() && finished_.front() == file) finished_.pop_front();
    // The file's queued batches no longer count as ahead (its worker may now fill its queue).
    for (const FileMessage& q : queues_[file])
        if (q.kind != FileMessage::Kind::done) --queued_ahead_;
    consuming_ = file;
    lock.unlock();
    space_.notify_all();  // room ahead was freed, and the file's worker may be waiting for it
    return file;
}

FileMessage FileReaders::next() {
    std::unique_lock<std::mutex> lock(mu_);
    const std::size_t file = consuming_;
    data_.wait(lock, [&] { return !queues_[file].empty(); });
    FileMessage m = std::move(queues_[file].front());
    queues_[file].pop_front();
    lock.unlock();
    space_.notify_all();
    if (m.failure) std::rethrow_exception(m.failure);
    return m;
}

}  // namespace ringprof::detail
