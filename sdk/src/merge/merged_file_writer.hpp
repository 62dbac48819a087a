// Writes the merged file: the store's events in order, each track's pid and tid and the
// metadata lines announcing them as TrackNumbering settled them. An in-memory store is written in
// slices, each formatted and written at its own offset by a thread of its own; the file is the
// same byte for byte whatever the number of slices. It appears only when complete (an AtomicFile).
#pragma once

#include <cstdint>
#include <string>

#include "merge/record_store.hpp"
#include "merge/track_numbering.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::detail {

class MergedFileWriter {
public:
    // Throws OutputError naming the path when the file cannot be created; destroyed before
    // finish() succeeded, it leaves nothing behind.
    MergedFileWriter(std::string final_path, const TrackNumbering& tracks);
    MergedFileWriter(const MergedFileWriter&) = delete;
    MergedFileWriter& operator=(const MergedFileWriter&) = delete;

    // Writes every committed event of the store, in up to `threads` slices, one per thread, the
    // caller's among them (one pass when the store has spilled). Throws OutputError, or
    // std::runtime_error on the store's I/O errors.
    void write_sorted(RecordStore& store, unsigned threads);
    void finish();  // "[]" when nothing was written

    std::uint64_t events() const { return events_; }
    std::uint64_t metadata() const { return metadata_; }

    // Below this many events a slice is not worth a thread.
    static constexpr std::size_t kMinSliceEvents = 8192;

private:
    AtomicFile file_;
    const TrackNumbering& tracks_;
    std::uint64_t end_ = 0;  // bytes written
    std::uint64_t events_ = 0, metadata_ = 0;
};

}  // namespace ringprof::detail
