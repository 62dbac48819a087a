// An output written piece by piece while the program runs (the Chrome trace, each pythontimeline
// file), which no reader may take for finished before it is.
//
// Problem: a full disk makes write() take part of a piece, or nothing. Continuing after a lost
// remainder leaves a record cut in the middle (invalid JSON, a corrupt gzip stream); a file
// written at its final name from the start stands there truncated when the run cannot finish it.
//
// Mechanism: the file is written under a temporary name ("<name>.tmp" or a free name made from
// it). Bytes the system does not take stay pending in memory, in order, and are written first at
// the next append() or retry(): a disk that was full for a moment leaves the file byte-exact, and
// while it stays full the same file is retried, nothing new is created. finish() closes the file
// and gives it its final name only when every byte reached it. A file that cannot be completed
// (bytes still pending at finish(), more than kMaxPendingBytes pending, a failed close) is renamed
// "<name>.incomplete", and the OutputError that says so names it; what was written stays in it. A
// writer stopped before finish() (killed, or a session's end that gave up) leaves the ".tmp" name.
//
// Bound: at most kMaxPendingBytes held in memory per file while the disk stays full; one file on
// disk per stream however many times a write is retried.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "process/safe_files.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::detail {

class StreamedFile {
public:
    // Past this much unwritten output the file is given up: memory is not spent without bound on
    // a disk that stays full.
    static constexpr std::size_t kMaxPendingBytes = std::size_t{64} << 20;

    StreamedFile() = default;
    StreamedFile(const StreamedFile&) = delete;
    StreamedFile& operator=(const StreamedFile&) = delete;

    // Creates the file `temp_name` (a free name made from it if a regular file has that name) in
    // `folder`, to become `name` there. A link or anything that is not a regular file at `name`
    // is refused now (OutputRefused), before anything is written. Throws OutputError.
    void open(OutputFolder folder, const std::string& name, const std::string& temp_name);

    // Open in this process (false in a forked child for its parent's file, and once finished or
    // given up).
    bool is_open() const { return file_.is_open(); }

    // Appends `data` after every byte appended before. Never throws for a write the system
    // refused: the bytes stay pending (see problem()), unless that puts more than
    // kMaxPendingBytes pending; then the file is given up and the OutputError says where it is.
    void append(std::string_view data);
    // Writes what is pending, if anything; throws as append() does.
    void retry() { append({}); }
    std::size_t pending_bytes() const { return pending_.size(); }

    // The first write failure since the file last had nothing pending, once: an OutputError
    // saying that the bytes are kept and retried. Throws it, or does nothing.
    void throw_new_problem();

    // Writes what is pending, closes, and renames the file to its name in its folder, replacing
    // a previous regular file there. A file that cannot be completed is given up (see above).
    // Throws OutputError.
    void finish();
    // finish() in two parts, for a file whose final place is known only once it is complete:
    // close_complete() writes what is pending and closes (false: not open here, nothing done;
    // throws if given up); place_into() then renames it to the first free name `to_name(n)`
    // (n = 0, 1, ...) in `to_folder`, never replacing anything.
    bool close_complete();
    template <typename NameFor>
    void place_into(const OutputFolder& to_folder, NameFor to_name);

    const OutputFolder& folder() const { return folder_; }
    const std::string& temp_path() const { return file_.path(); }

private:
    [[noreturn]] void give_up(int err);  // renames to "<name>.incomplete", throws
    std::string final_path() const { return folder_.path_of(name_); }

    OutputFolder folder_;
    std::string name_;
    std::string temp_name_;
    OutputFile file_;
    std::string pending_;
    int failing_errno_ = 0;      // the last write's failure while bytes are pending
    bool problem_said_ = false;  // throw_new_problem() already threw for this streak
};

template <typename NameFor>
void StreamedFile::place_into(const OutputFolder& to_folder, NameFor to_name) {
    for (unsigned n = 0; !rename_if_free(folder_, temp_name_, to_folder, to_name(n)); ++n) {
    }
}

}  // namespace ringprof::detail
