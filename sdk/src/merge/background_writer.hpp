// Writes buffers, each at its place in the file, on a thread of its own, so that the kernel's
// copy of each into the page cache overlaps the formatting of the next (bench_merge input: that
// copy was 7% of a merge's CPU time and the formatting 5%, both after reading, on one thread).
// Used where one thread formats the whole file (a store spilled to run files is read back in one
// pass). A few buffers wait their turn while the caller fills the next, so that neither thread
// stalls on the other's moment-to-moment pace: memory stays kInFlight + 1 buffers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "merge/text_buffer.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::detail {

class BackgroundWriter {
public:
    explicit BackgroundWriter(AtomicFile& file);
    ~BackgroundWriter();  // stops after the buffer being written, if any; never throws
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;

    static constexpr std::size_t kInFlight = 3;
    // Queues `full` for writing at `offset` (waiting while kInFlight are queued) and gives back
    // an empty buffer in its place, one already written when there is one. Rethrows a write
    // error of the thread (an OutputError naming the file).
    void hand_over(std::uint64_t offset, TextBuffer& full);
    // Waits until everything handed over is written; rethrows a write error.
    void wait();

private:
    void run();

    AtomicFile& file_;
    std::mutex mu_;
    std::condition_variable changed_;
    struct Pending {
        std::uint64_t offset;
        TextBuffer text;
    };
    std::deque<Pending> queue_;        // the front one is the thread's while it writes it
    std::vector<TextBuffer> written_;  // emptied, for hand_over to give back
    bool stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace ringprof::detail
