#include "ringprof/output_files.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "process/safe_files.hpp"

namespace ringprof {

namespace {
// This process's id, kept current across fork by a handler: OutputFile asks for every span
// batch, and getpid() is a system call.
std::atomic<pid_t> g_pid{0};

void remember_pid_in_child() { g_pid.store(::getpid(), std::memory_order_relaxed); }

pid_t current_pid() {
    pid_t pid = g_pid.load(std::memory_order_relaxed);
    if (pid != 0) return pid;
    static std::once_flag registered;
    std::call_once(registered, [] { ::pthread_atfork(nullptr, nullptr, remember_pid_in_child); });
    pid = ::getpid();
    g_pid.store(pid, std::memory_order_relaxed);
    return pid;
}
}  // namespace

std::string folder_of(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

OutputError output_error(const std::string& what, const std::string& path, int err) {
    const std::string reason = std::strerror(err != 0 ? err : EIO);
    return OutputError(what + " '" + path + "': " + reason, folder_of(path), reason);
}

std::string why_not_a_name(std::string_view name) {
    if (name.empty()) return "it is empty";
    if (name == "." || name == "..") return "it names a folder";
    if (name.find('/') != std::string_view::npos) return "it holds a '/'";
    if (name.find('\0') != std::string_view::npos) return "it holds a NUL character";
    return {};
}

std::string output_path(const std::string& dir, std::string_view name) {
    const std::string wrong = why_not_a_name(name);
    if (!wrong.empty()) {
        const std::string reason = "'" + std::string(name) + "' is not a file name (" + wrong + ")";
        throw OutputError("cannot write '" + std::string(name) + "' into '" + dir + "': " + reason +
                              "; nothing is written outside the output folder",
                          dir, reason);
    }
    return (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
}

void ensure_output_dir(const std::string& dir) {
    if (dir.empty()) return;
    std::string partial;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
        pos = dir.find('/', pos + 1);
        partial = dir.substr(0, pos);
        if (partial.empty()) continue;
        if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) {
            throw output_error("cannot create output folder", partial, errno);
        }
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        const int err = errno;
        const std::string reason = std::strerror(err);
        throw OutputError("cannot use output folder '" + dir + "': " + reason, dir, reason);
    }
    if (!S_ISDIR(st.st_mode))
        throw OutputError("cannot use output folder '" + dir + "': not a folder", dir, "not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        const std::string reason = std::strerror(errno);
        throw OutputError("cannot write into output folder '" + dir + "': " + reason, dir, reason);
    }
}

void write_file_atomically(const std::string& path, std::string_view content) {
    AtomicFile f(path);
    f.write(content);
    f.commit();
}

// ---------------------------------------------------------------- AtomicFile

namespace {
// Pieces are gathered up to this size before a write(): merged timelines arrive as millions of
// lines of ~100 bytes, and 1 MiB was the merge writer's stdio buffer before it used this class.
constexpr std::size_t kAtomicFileBuffer = std::size_t{1} << 20;

std::string base_name(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The folder of the file `path`; an error names the file, as one from creating it would.
detail::OutputFolder folder_of_file(const std::string& path) {
    try {
        return detail::OutputFolder::open(folder_of(path));
    } catch (const OutputError& e) {
        throw OutputError("cannot create '" + path + "': " + e.reason(), e.folder(), e.reason());
    }
}

OutputError keeping_previous(const OutputError& e, const std::string& path) {
    return OutputError(std::string(e.what()) + " (the previous version of '" + path + "', if any, is kept)", e.folder(),
                       e.reason());
}
}  // namespace

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), folder_(std::make_unique<detail::OutputFolder>(folder_of_file(path_))) {
    const int fd =
        detail::create_new_file(*folder_, base_name(path_) + "." + std::to_string(current_pid()) + ".tmp", &temp_name_);
    file_.adopt(fd, folder_->path_of(temp_name_));
}

AtomicFile::~AtomicFile() {
    if (committed_ || !file_.is_open()) return;  // a forked child never removes its parent's file
    try {
        file_.close();
    } catch (const OutputError&) {
        // Being discarded anyway.
    }
    ::unlinkat(folder_->fd(), temp_name_.c_str(), 0);
}

void AtomicFile::write_buffer() {
    try {
        file_.write(buffer_);
    } catch (const OutputError& e) {
        throw keeping_previous(e, path_);
    }
    buffer_.clear();
}

void AtomicFile::write(std::string_view data) {
    if (buffer_.size() + data.size() <= kAtomicFileBuffer) {
        if (buffer_.capacity() == 0)
            buffer_.reserve(std::min(kAtomicFileBuffer, std::max<std::size_t>(data.size(), 4096)));
        buffer_.append(data);
        return;
    }
    write_buffer();
    if (data.size() >= kAtomicFileBuffer) {
        try {
            file_.write(data);
        } catch (const OutputError& e) {
            throw keeping_previous(e, path_);
        }
    } else {
        buffer_.append(data);
    }
}

void AtomicFile::write_at(std::uint64_t offset, std::string_view data) {
    try {
        file_.write_at(offset, data);
    } catch (const OutputError& e) {
        throw keeping_previous(e, path_);
    }
}

void AtomicFile::commit() {
    if (!file_.is_open()) return;
    write_buffer();
    try {
        file_.close();
    } catch (const OutputError& e) {
        ::unlinkat(folder_->fd(), temp_name_.c_str(), 0);
        throw keeping_previous(e, path_);
    }
    try {
        detail::replace_file(*folder_, temp_name_, *folder_, base_name(path_));
    } catch (const OutputError&) {
        ::unlinkat(folder_->fd(), temp_name_.c_str(), 0);
        throw;
    }
    committed_ = true;
}

// ---------------------------------------------------------------- OutputFile

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);  // in a forked child this closes only the child's copy
}

void OutputFile::open(const std::string& path) {
    const detail::OutputFolder folder = folder_of_file(path);
    const std::string name = base_name(path);
    std::string temp;
    const int fd = detail::create_new_file(folder, name + "." + std::to_string(current_pid()) + ".tmp", &temp);
    try {
        detail::replace_file(folder, temp, folder, name);  // in place at once: readers may follow it
    } catch (const OutputError&) {
        ::unlinkat(folder.fd(), temp.c_str(), 0);
        ::close(fd);
        throw;
    }
    adopt(fd, path);
}

void OutputFile::adopt(int fd, std::string path) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    path_ = std::move(path);
    owner_ = current_pid();
}

bool OutputFile::is_open() const { return fd_ >= 0 && owner_ == current_pid(); }

void OutputFile::write(std::string_view data) {
    int err = 0;
    write_some(data, &err);
    if (err != 0) throw output_error("cannot write", path_, err);
}

std::size_t OutputFile::write_some(std::string_view data, int* err) {
    *err = 0;
    if (!is_open()) return data.size();
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd_, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *err = n < 0 ? errno : EIO;
            break;
        }
        written += static_cast<std::size_t>(n);
    }
    return written;
}

void OutputFile::write_at(std::uint64_t offset, std::string_view data) {
    if (!is_open()) return;
    while (!data.empty()) {
        const ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw output_error("cannot write", path_, n < 0 ? errno : EIO);
        data.remove_prefix(static_cast<std::size_t>(n));
        offset += static_cast<std::uint64_t>(n);
    }
}

void OutputFile::close() {
    if (fd_ < 0) return;
    const int fd = fd_;
    fd_ = -1;
    if (owner_ != current_pid()) {
        ::close(fd);
        return;
    }
    // On network file systems a failed write may only show here.
    if (::close(fd) != 0 && errno != EINTR) throw output_error("cannot write", path_, errno);
}

}  // namespace ringprof
