// Threads started before their work exists, asleep until it is handed to them: a thread woken
// on a sleeping core starts there at once, where a thread created when the work was there
// queued behind its parent on the parent's core for 3-5 ms while the other core idled (perf
// sched on bench_merge's input: a tenth of the merge's writing).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ringprof::detail {

class ReadyThreads {
public:
    // Starts up to `count` threads (fewer when the system refuses more).
    explicit ReadyThreads(std::size_t count);
    ~ReadyThreads();  // joins them
    ReadyThreads(const ReadyThreads&) = delete;
    ReadyThreads& operator=(const ReadyThreads&) = delete;

    std::size_t size() const { return threads_.size(); }
    // Runs task(0) on the caller and task(1) .. task(n - 1) on the threads (n <= size() + 1);
    // returns when all are done, rethrowing the first exception of any.
    void run(std::size_t n, const std::function<void(std::size_t)>& task);

private:
    void serve(std::size_t index);

    std::mutex mu_;
    std::condition_variable work_, done_;
    const std::function<void(std::size_t)>* task_ = nullptr;
    std::size_t tasks_ = 0;       // threads with a part in the current run: 1 .. tasks_
    std::size_t generation_ = 0;  // counts runs, so that each thread takes each run once
    std::size_t running_ = 0;     // parts of the current run not finished yet
    std::exception_ptr failure_;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace ringprof::detail
