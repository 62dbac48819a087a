#include "process/run_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace ringprof::detail {

namespace {
constexpr int kMaxCandidates = 64;  // "<run_id>_<pid>", then "_2"... (pids can repeat across hosts)

std::string claim_path(const std::string& dir, const std::string& run_id) {
    return (dir.empty() ? std::string(".") : dir) + "/." + run_id + ".ringprof_claim";
}
}  // namespace

RunClaim::~RunClaim() { release(); }

RunClaim::Outcome RunClaim::try_claim(const std::string& path) {
    // Retried when the file was replaced between open and lock (its holder released it).
    for (int attempt = 0; attempt < 8; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return Outcome::Unavailable;
        struct flock lock{};
        lock.l_type = F_WRLCK;
        lock.l_whence = SEEK_SET;
        if (::fcntl(fd, F_SETLK, &lock) != 0) {
            const int err = errno;
            ::close(fd);
            return err == EACCES || err == EAGAIN ? Outcome::Taken : Outcome::Unavailable;
        }
        struct stat held{}, named{};
        if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            fd_ = fd;
            owner_ = ::getpid();
            path_ = path;
            const std::string pid = std::to_string(owner_) + "\n";  // for a curious reader
            if (::ftruncate(fd, 0) == 0 && ::write(fd, pid.data(), pid.size()) < 0) {
                // informational only
            }
            return Outcome::Claimed;
        }
        ::close(fd);
    }
    return Outcome::Unavailable;
}

std::string RunClaim::claim(const std::string& dir, const std::string& run_id) {
    release();
    switch (try_claim(claim_path(dir, run_id))) {
        case Outcome::Claimed:
        case Outcome::Unavailable: return run_id;
        case Outcome::Taken: break;
    }
    const std::string base = run_id + "_" + std::to_string(::getpid());
    for (int n = 1; n <= kMaxCandidates; ++n) {
        const std::string candidate = n == 1 ? base : base + "_" + std::to_string(n);
        const Outcome o = try_claim(claim_path(dir, candidate));
        if (o == Outcome::Taken) continue;
        std::fprintf(stderr,
                     "ringprof: run id '%s' is in use by another process writing to '%s'; this process writes "
                     "its files as '%s'\n",
                     run_id.c_str(), dir.c_str(), candidate.c_str());
        return candidate;
    }
    return base;
}

void RunClaim::release() {
    if (fd_ < 0) return;
    // Unlinked while still locked: a process that opened the old file finds it replaced.
    if (owner_ == ::getpid()) ::unlink(path_.c_str());
    ::close(fd_);
    fd_ = -1;
}

}  // namespace ringprof::detail
