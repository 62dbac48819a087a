// Writing output files safely: a file is written under a temporary name and renamed, so a
// reader never sees half a file and a failed write (full disk) leaves the previous one intact.
// Errors throw OutputError with a message naming the path and the problem.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <string>
#include <string_view>

namespace ringprof {

namespace detail {
class OutputFolder;
}  // namespace detail

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    // A problem with a file or folder inside `folder`; `reason` says what is wrong there (the
    // system's words, e.g. "Permission denied"), so that one problem of one folder can be
    // reported once however many files it hits.
    OutputError(const std::string& message, std::string folder, std::string reason)
        : std::runtime_error(message), folder_(std::move(folder)), reason_(std::move(reason)) {}
    const std::string& folder() const { return folder_; }
    const std::string& reason() const { return reason_; }

private:
    std::string folder_;
    std::string reason_;
};

// A name in an output folder holds something ringprof did not create there (a link, a FIFO, a
// folder, a file with other names): it is left as it is and nothing is written through it.
class OutputRefused : public OutputError {
public:
    // `path` holds `what_is_there` ("a symbolic link", ...).
    OutputRefused(const std::string& path, const std::string& what_is_there);
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Creates `dir` and its parents if missing, and checks that files can be created in it.
void ensure_output_dir(const std::string& dir);

// A name that ringprof makes part of an output file's name (a run id, a program or node name, a
// backend's file name) is a name, never a path: it must not be empty, ".", "..", nor hold a '/' or
// a NUL, so that no setting can put a file outside the output folder. Returns what is wrong with
// `name`, or an empty string when it is a name.
std::string why_not_a_name(std::string_view name);

// The path of the output file `name` in the output folder `dir`: the one place every output path
// is built (built-in backends and a user's own go through it). Throws OutputError, naming `name`,
// when it is not a name (see why_not_a_name): nothing is written for it.
std::string output_path(const std::string& dir, std::string_view name);

// Replaces `path` with `content` atomically (an AtomicFile written in one go).
void write_file_atomically(const std::string& path, std::string_view content);

// An output file written by exactly one process: the one that opened it. After fork() the
// child holds a copy of the descriptor but never writes through it, and nothing is buffered
// where exit() could flush it (no FILE*, no ofstream: bytes go straight to write()), so a
// child that exits, execs or keeps running cannot add a byte to its parent's file. The
// descriptor is close-on-exec.
class OutputFile {
public:
    OutputFile() = default;
    ~OutputFile();  // closes the descriptor without reporting errors
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    // Creates a new file at `path` for writing, replacing a previous regular file there: it is
    // created under a temporary name and renamed into place at once, so whatever another user
    // may have put at `path` (a link, a FIFO) is never opened; that is refused (OutputRefused).
    // Throws OutputError.
    void open(const std::string& path);
    // Takes `fd`, a file this process has just created, as the file named `path`.
    void adopt(int fd, std::string path);
    // Open and owned by this process (false in a forked child for its parent's file).
    bool is_open() const;
    // Writes all of `data`; throws OutputError. Does nothing in a process that does not own it.
    void write(std::string_view data);
    // Writes as much of `data` as the system takes now (a full disk may take part of it, or
    // nothing) and returns how many bytes it took; `*err` is the errno that stopped it, 0 when
    // everything was written. Returns data.size() in a process that does not own the file.
    std::size_t write_some(std::string_view data, int* err);
    // The same at `offset`, leaving the file position alone: threads may write their own parts.
    void write_at(std::uint64_t offset, std::string_view data);
    // Closes the file; throws OutputError if the system reports a failed write.
    void close();
    const std::string& path() const { return path_; }

private:
    int fd_ = -1;
    pid_t owner_ = 0;
    std::string path_;
};

// A file that appears at its path only when complete: written as "<path>.<pid>.tmp" (the
// writing process's own name, so processes sharing a folder never write into one file; another
// free name if a regular file already has it), then renamed over `path` by commit(). Until then
// a previous version of `path` stays in place, and a file destroyed uncommitted (an error, an
// exception) removes its temporary file. Only files it creates itself are written: a link or
// anything that is not a regular file at either name is left as it is and refused
// (OutputRefused). The one temporary-then-rename writer of the project: snapshot files and
// `ringprof merge` use it.
class AtomicFile {
public:
    // Creates the temporary file in the folder of `path` (links in the folder's path are followed:
    // it is the caller's choice; the file names are not); throws OutputError.
    explicit AtomicFile(std::string path);
    ~AtomicFile();  // removes the temporary file unless committed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Appends `data` (buffered: many small pieces cost few system calls); throws OutputError.
    void write(std::string_view data);
    // Writes `data` at `offset`, unbuffered, from any thread (each its own part of the file);
    // throws OutputError. Not to be mixed with write().
    void write_at(std::uint64_t offset, std::string_view data);
    // Writes what is buffered, closes, and renames over `path`; throws OutputError, naming the
    // file and saying that the previous version, if any, is kept.
    void commit();

    const std::string& path() const { return path_; }
    const std::string& temp_path() const { return file_.path(); }

private:
    void write_buffer();

    std::string path_;
    std::unique_ptr<detail::OutputFolder> folder_;  // the folder opened once, for the rename
    std::string temp_name_;
    OutputFile file_;
    std::string buffer_;
    bool committed_ = false;
};

// The folder part of `path` ("." when it has none).
std::string folder_of(const std::string& path);
// An OutputError for `what` ("cannot create", ...) on `path`, with errno `err`.
OutputError output_error(const std::string& what, const std::string& path, int err);

}  // namespace ringprof
