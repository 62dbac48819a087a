// How every output file and folder is made, so that a shared, world-writable output folder (the
// /tmp case) cannot be used against the program: another user who guesses the names can plant
// links, FIFOs or folders there, and a program running as root would otherwise write through
// them into files that user cannot write, or block forever opening a FIFO.
//
// The rule: ringprof writes only into files it has just created itself. Names are resolved
// relative to an open folder without following links (the output folder's own path is followed:
// the user chose it); a file is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) under a
// temporary name and renamed into place; a final name holding a link or anything that is not a
// regular file is left as it is and the output refused (an OutputError naming it); the one file
// opened that may already exist (the run id's claim) is opened without blocking and used only
// if it is a regular file with no other name.
#pragma once

#include <string>

#include "ringprof/output_files.hpp"

namespace ringprof::detail {

// An open folder; names inside it are resolved relative to it.
class OutputFolder {
public:
    OutputFolder() = default;
    ~OutputFolder();
    OutputFolder(OutputFolder&& other) noexcept;
    OutputFolder& operator=(OutputFolder&& other) noexcept;
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    // The folder at `path`, links followed (the user's own choice). Throws OutputError.
    static OutputFolder open(const std::string& path);
    // The folder `name` inside this one, created if missing; a link or anything else than a
    // folder at `name` is refused. Throws OutputError.
    OutputFolder subfolder(const std::string& name) const;

    bool is_open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    std::string path_of(const std::string& name) const { return path_ + "/" + name; }

private:
    OutputFolder(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    int fd_ = -1;
    std::string path_;
};

// A new, empty file created by this process in `folder`, open for writing (close-on-exec):
// named `preferred`, or, when a regular file already has that name (a crashed run's leftover,
// a process of the same pid in another container), a free name made from it. Anything else at
// `preferred` (a link, a FIFO, a folder) is left as it is and refused. Returns the descriptor
// and sets `*name`. Throws OutputError.
int create_new_file(const OutputFolder& folder, const std::string& preferred, std::string* name);

// Renames `from` (in `from_folder`) over `to` (in `to_folder`), replacing a regular file there
// (the previous version); a link or anything else that is not a regular file at `to` is left as
// it is and refused (the caller still holds `from`). Throws OutputError.
void replace_file(const OutputFolder& from_folder, const std::string& from, const OutputFolder& to_folder,
                  const std::string& to);

// Throws OutputRefused if something else than a regular file (a link, a FIFO) is at `name`.
void refuse_unless_file_or_free(const OutputFolder& folder, const std::string& name);

// Renames `from` to `to` unless something is at `to`: false then. Throws OutputError.
bool rename_if_free(const OutputFolder& from_folder, const std::string& from, const OutputFolder& to_folder,
                    const std::string& to);

// Opens `name` in `folder` for reading and writing without blocking, creating it if missing; an
// existing one is used only if it is a regular file with no other name (a hard link could make
// it another user's file). `*created` says whether this call made it. For files several
// processes share (lock files). Returns the descriptor (close-on-exec). Throws OutputError.
int open_shared_file(const OutputFolder& folder, const std::string& name, bool* created);

// What a file mode says is there, for a refusal: "a symbolic link", "a FIFO", ...
const char* kind_of(unsigned mode);

}  // namespace ringprof::detail
