// Writes the merged file's buffers on a thread of its own, so that the kernel's copy of each
// megabyte into the page cache overlaps the formatting of the next one (bench_merge input: that
// copy was 7% of a merge's CPU time and the formatting 5%, both after reading, on one thread).
// One buffer is written while the caller fills the other: memory stays two buffers.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "merge/text_buffer.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::detail {

class BackgroundWriter {
public:
    explicit BackgroundWriter(AtomicFile& file);
    ~BackgroundWriter();  // stops after the buffer being written, if any; never throws
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;

    // Queues `full` for writing once the previous buffer is written, and gives back that one,
    // emptied, in its place. Rethrows a write error of the thread (an OutputError naming the file).
    void hand_over(TextBuffer& full);
    // Waits until everything handed over is written; rethrows a write error.
    void wait();

private:
    void run();

    AtomicFile& file_;
    std::mutex mu_;
    std::condition_variable changed_;
    TextBuffer pending_;  // owned by the thread while has_pending_
    bool has_pending_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace ringprof::detail
