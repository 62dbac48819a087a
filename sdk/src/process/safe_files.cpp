#include "process/safe_files.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdint>
#include <random>
#include <utility>

namespace ringprof {

OutputRefused::OutputRefused(const std::string& path, const std::string& what_is_there)
    : OutputError("'" + path + "' is " + what_is_there +
                      " that ringprof did not create: left as it is, nothing is written through it",
                  folder_of(path), "'" + path + "' is " + what_is_there),
      path_(path) {}

namespace detail {

namespace {
// Temporary names to try after a regular file turned out to hold the preferred one.
constexpr int kOtherNames = 16;

// What is at `name` in `folder` (not following a link): its mode, or 0 if nothing.
unsigned mode_at(const OutputFolder& folder, const std::string& name) {
    struct stat st {};
    return ::fstatat(folder.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_mode : 0;
}

// Every name below is resolved relative to an open folder: a '/' or ".." in it would reach
// outside that folder. output_path() refuses such names where paths are built; this is the same
// rule where files are made, for names built from a folder and a name alone (a node id).
void require_name(const OutputFolder& folder, const std::string& name) {
    const std::string wrong = why_not_a_name(name);
    if (wrong.empty()) return;
    const std::string reason = "'" + name + "' is not a file name (" + wrong + ")";
    throw OutputError("cannot write '" + name + "' into '" + folder.path() + "': " + reason +
                          "; nothing is written outside the output folder",
                      folder.path(), reason);
}

std::string free_name_candidate(const std::string& preferred) {
    // Not guessable: another user could otherwise plant these names too. Drawn from the system
    // for each candidate (a taken name is rare), not from a thread_local generator: 2.5 KB of
    // thread-local state made the library's TLS too large for the static TLS glibc gives a
    // dlopen'ed library (512 bytes), so every marker of the Python extension reached t_ring
    // through _dl_tlsdesc_dynamic (tests/python/test_package.py checks the size).
    std::random_device random;
    const std::string tag = "." + std::to_string(random() % 1000000000u);
    const std::string tmp = ".tmp";
    if (preferred.size() > tmp.size() && preferred.compare(preferred.size() - tmp.size(), tmp.size(), tmp) == 0) {
        return preferred.substr(0, preferred.size() - tmp.size()) + tag + tmp;
    }
    return preferred + tag;
}
}  // namespace

const char* kind_of(unsigned mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISREG(mode)) return "a file";
    return "something else than a file";
}

// ---------------------------------------------------------------- OutputFolder

OutputFolder::~OutputFolder() {
    if (fd_ >= 0) ::close(fd_);
}

OutputFolder::OutputFolder(OutputFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OutputFolder& OutputFolder::operator=(OutputFolder&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

OutputFolder OutputFolder::open(const std::string& path) {
    // O_PATH: creating files needs write and search permission on the folder, not read.
    const int fd = ::open(path.empty() ? "." : path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const std::string reason = std::strerror(errno);
        throw OutputError("cannot use output folder '" + path + "': " + reason, path, reason);
    }
    return OutputFolder(fd, path.empty() ? std::string(".") : path);
}

OutputFolder OutputFolder::subfolder(const std::string& name) const {
    require_name(*this, name);
    const std::string path = path_of(name);
    if (::mkdirat(fd_, name.c_str(), 0777) != 0 && errno != EEXIST) {
        throw output_error("cannot create output folder", path, errno);
    }
    const int fd = ::openat(fd_, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) return OutputFolder(fd, path);
    const int err = errno;
    if (fd >= 0) ::close(fd);
    const unsigned there = mode_at(*this, name);
    if (there != 0 && !S_ISDIR(there)) throw OutputRefused(path, kind_of(there));
    throw output_error("cannot use output folder", path, err);
}

// ---------------------------------------------------------------- files

int create_new_file(const OutputFolder& folder, const std::string& preferred, std::string* name) {
    require_name(folder, preferred);
    std::string candidate = preferred;
    for (int attempt = 0;; ++attempt) {
        // O_EXCL never opens what is there, whatever it is (a FIFO included: nothing blocks).
        const int fd = ::openat(folder.fd(), candidate.c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            *name = candidate;
            return fd;
        }
        const int err = errno;
        if (err != EEXIST) throw output_error("cannot create", folder.path_of(candidate), err);
        const unsigned there = mode_at(folder, candidate);
        if (attempt == 0 && there != 0 && !S_ISREG(there))
            throw OutputRefused(folder.path_of(candidate), kind_of(there));
        if (attempt == kOtherNames) throw output_error("cannot create", folder.path_of(preferred), EEXIST);
        candidate = free_name_candidate(preferred);
    }
}

void refuse_unless_file_or_free(const OutputFolder& folder, const std::string& name) {
    require_name(folder, name);
    const unsigned there = mode_at(folder, name);
    if (there != 0 && !S_ISREG(there)) throw OutputRefused(folder.path_of(name), kind_of(there));
}

void replace_file(const OutputFolder& from_folder, const std::string& from, const OutputFolder& to_folder,
                  const std::string& to) {
    // Checked before, not atomically with the rename: a link put there in between is replaced,
    // which is harmless (a rename never follows a link), only not reported.
    refuse_unless_file_or_free(to_folder, to);
    if (::renameat(from_folder.fd(), from.c_str(), to_folder.fd(), to.c_str()) != 0) {
        throw output_error("cannot replace", to_folder.path_of(to), errno);
    }
}

bool rename_if_free(const OutputFolder& from_folder, const std::string& from, const OutputFolder& to_folder,
                    const std::string& to) {
    require_name(to_folder, to);
    if (::renameat2(from_folder.fd(), from.c_str(), to_folder.fd(), to.c_str(), RENAME_NOREPLACE) == 0) return true;
    int err = errno;
    if (err == EEXIST) return false;
    if (err == EINVAL || err == ENOSYS) {
        // A file system without RENAME_NOREPLACE: a new link fails the same way if the name is taken.
        if (::linkat(from_folder.fd(), from.c_str(), to_folder.fd(), to.c_str(), 0) == 0) {
            ::unlinkat(from_folder.fd(), from.c_str(), 0);
            return true;
        }
        err = errno;
        if (err == EEXIST) return false;
    }
    throw output_error("cannot rename", from_folder.path_of(from), err);
}

int open_shared_file(const OutputFolder& folder, const std::string& name, bool* created) {
    require_name(folder, name);
    const std::string path = folder.path_of(name);
    int fd = ::openat(folder.fd(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST) {
        fd = ::openat(folder.fd(), name.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    }
    if (fd < 0) {
        const int err = errno;
        const unsigned there = mode_at(folder, name);
        if (there != 0 && !S_ISREG(there)) throw OutputRefused(path, kind_of(there));
        throw output_error("cannot open", path, err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw output_error("cannot open", path, err);
    }
    // A link count of 0: its holder just removed it; the caller sees that it was replaced.
    if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
        ::close(fd);
        throw OutputRefused(path, S_ISREG(st.st_mode) ? "a file with other names (a hard link)" : kind_of(st.st_mode));
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

}  // namespace detail
}  // namespace ringprof
