// Reads files on worker threads while one consumer takes them whole, one at a time: all of a
// file's messages in order, then another file's. The consumer takes a file whose reading has
// finished before one still being read, so it works on what is ready instead of waiting behind the
// slowest file (the order does not change the merge's answer: the store orders ties by file rank).
// Workers take files in order, one at a time. Memory stays bounded whatever the input: the file
// being consumed queues at most kQueued batches, and the others at most ahead_limit() together
// (a worker ahead waits for room). When that room is full, or no file is left to start, the
// consumer takes a file still being read. A file being consumed is either read to the end or has a
// worker that always gets room, so nothing waits forever.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "merge/event_batch.hpp"
#include "merge/track_numbering.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::detail {

struct FileMessage {
    enum class Kind { batch, restart, done };
    Kind kind = Kind::batch;
    EventBatch batch;                      // batch
    std::optional<std::string> error;      // done: why the file is left out whole
    ReadOutcome outcome;                   // done, without error
    std::optional<TraceNumber> max_end;    // done: the latest end among the file's kept events
    std::vector<TrackFirst> first_events;  // done: each track's earliest kept event (seq: its position)
    std::exception_ptr failure;            // done: an unexpected exception, rethrown by next()
};

class FileReaders {
public:
    class Outbox {
    public:
        // Blocks while the file's queue is full. Throws (an exception private to the pipeline)
        // when the consumer has gone away: the reader must then just unwind.
        void send(FileMessage m);

    private:
        friend class FileReaders;
        Outbox(FileReaders& owner, std::size_t file) : owner_(owner), file_(file) {}
        FileReaders& owner_;
        std::size_t file_;
    };
    // Reads file `file`, sending its batches and restarts; the pipeline sends the final `done`
    // message itself from what read returns (or throws).
    using Reader = std::function<FileMessage(std::size_t file, Outbox& out)>;

    FileReaders(std::size_t files, unsigned threads, Reader read);
    ~FileReaders();  // stops the workers (a consumer that gives up early is fine) and joins them
    FileReaders(const FileReaders&) = delete;
    FileReaders& operator=(const FileReaders&) = delete;

    // The file to consume next (blocks until one should be): call once per file, each time after
    // the previous file's `done`.
    std::size_t next_file();
    // The next message of the file next_file() returned last, until `done`. Rethrows a worker's
    // unexpected exception.
    FileMessage next();

    // Measured on bench_merge's input (33 files, batches of kBatchBytes): 4 queued batches keep
    // both workers busy; memory in flight stays a few MiB.
    static constexpr std::size_t kQueued = 4;
    // Batches the files not being consumed may hold together (16 MiB of 256 KiB batches),
    // or kQueued per thread if that is more. While the consumer takes a large file that one worker
    // reads alone (the merge reads the largest first), the others read on ahead up to this instead
    // of idling: on bench_merge's input (perf samples per thread, load 6.9), with 4 per thread one
    // reader sat idle about 40 ms while the 10 MB gzip trace was stored; with 32 per thread (64 in
    // all) both stayed busy to the end of reading. A total, not per thread, so that more cores do
    // not multiply the memory in flight.
    // (Measured when files were consumed in a fixed order; it is also the room files that finish
    // early have to wait in while the consumer is busy.)
    static constexpr std::size_t kQueuedAhead = 64;
    static constexpr std::size_t ahead_limit(unsigned threads) {
        return kQueued * threads > kQueuedAhead ? kQueued * threads : kQueuedAhead;
    }
    // Batches sent and not yet taken by the consumer never exceed this (the bound the tests check):
    // the ahead limit, at most as many again in the file being consumed (those it queued while
    // ahead), plus one being sent per thread.
    static constexpr std::size_t max_in_flight(unsigned threads) { return 2 * ahead_limit(threads) + threads; }

private:
    struct Stopped {};
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    void work();
    void stop_and_join();
    std::size_t ready_file() const;  // what next_file() should return now, or kNone to wait

    std::size_t files_;
    Reader read_;
    std::mutex mu_;
    std::condition_variable space_, data_;
    std::vector<std::deque<FileMessage>> queues_;
    std::size_t next_file_ = 0;         // the next file a worker starts
    std::size_t consuming_ = kNone;     // the file next_file() returned last
    std::deque<std::size_t> finished_;  // files read to the end and not yet consumed, as they finished
    std::vector<std::size_t> reading_;  // files a worker is reading (at most one per worker)
    std::size_t queued_ahead_ = 0;      // batches queued for files other than consuming_
    std::size_t ahead_limit_;
    bool stop_ = false;
    std::vector<std::thread> workers_;
};

}  // namespace ringprof::detail
