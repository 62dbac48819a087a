#include "process/run_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace ringprof::detail {

namespace {
constexpr int kMaxCandidates = 64;  // "<run_id>_<pid>", then "_2"... (pids can repeat across hosts)

std::string claim_name(const std::string& run_id) { return "." + run_id + ".ringprof_claim"; }
}  // namespace

RunClaim::~RunClaim() { release(); }

namespace {
// The pid a claim file says made it ("<pid>\n"), or 0.
long long pid_in(int fd) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    return n > 0 ? std::atoll(text) : 0;
}
}  // namespace

RunClaim::Outcome RunClaim::try_claim(const std::string& name) {
    // Retried when the file was replaced between open and lock (its holder released it).
    for (int attempt = 0; attempt < 8; ++attempt) {
        bool created = false;
        int fd = -1;
        try {
            fd = open_shared_file(folder_, name, &created);
        } catch (const OutputRefused& e) {
            std::fprintf(stderr, "ringprof: %s (the run id's claim; this process writes its files without one)\n",
                         e.what());
            return Outcome::Unavailable;
        } catch (const OutputError&) {
            return Outcome::Unavailable;  // the folder's problem is reported with the outputs
        }
        struct flock lock {};
        lock.l_type = F_WRLCK;
        lock.l_whence = SEEK_SET;
        if (::fcntl(fd, F_SETLK, &lock) != 0) {
            const int err = errno;
            ::close(fd);
            return err == EACCES || err == EAGAIN ? Outcome::Taken : Outcome::Unavailable;
        }
        struct stat held {
        }, named{};
        if (::fstat(fd, &held) == 0 && ::fstatat(folder_.fd(), name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
            held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
            const pid_t self = ::getpid();
            // exec() closes the claim (close-on-exec, so its lock goes) but keeps the pid: a claim
            // left by this pid is an earlier image of this process, whose files the new image
            // must not replace.
            if (!created && pid_in(fd) == static_cast<long long>(self)) {
                ::close(fd);
                return Outcome::HeldByEarlierImage;
            }
            fd_ = fd;
            owner_ = self;
            name_ = name;
            // For a curious reader, and for an exec'd image to recognise its predecessor; only
            // into a file this user owns (a file another user made is used, not written).
            if (created || held.st_uid == ::geteuid()) {
                const std::string pid = std::to_string(owner_) + "\n";
                if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
                    // informational only
                }
            }
            return Outcome::Claimed;
        }
        ::close(fd);
    }
    return Outcome::Unavailable;
}

std::string RunClaim::claim(const std::string& dir, const std::string& run_id) {
    release();
    try {
        folder_ = OutputFolder::open(dir);
    } catch (const OutputError&) {
        return run_id;  // reported with the outputs
    }
    const Outcome first = try_claim(claim_name(run_id));
    if (first == Outcome::Claimed || first == Outcome::Unavailable) return run_id;
    const bool earlier_image = first == Outcome::HeldByEarlierImage;
    // An exec'd image counts its images; another process is told apart by its pid.
    const std::string base = run_id + (earlier_image ? "_exec" : "_" + std::to_string(::getpid()));
    for (int n = 1; n <= kMaxCandidates; ++n) {
        const std::string candidate = n == 1 ? base : base + "_" + std::to_string(n);
        const Outcome o = try_claim(claim_name(candidate));
        if (o == Outcome::Taken || o == Outcome::HeldByEarlierImage) continue;
        if (earlier_image) {
            std::fprintf(stderr,
                         "ringprof: run id '%s' in '%s' belongs to an earlier program image of this process (pid %lld, "
                         "before exec); this image writes its files as '%s', so the earlier files are kept\n",
                         run_id.c_str(), dir.c_str(), static_cast<long long>(::getpid()), candidate.c_str());
        } else {
            std::fprintf(stderr,
                         "ringprof: run id '%s' is in use by another process writing to '%s'; this process writes "
                         "its files as '%s'\n",
                         run_id.c_str(), dir.c_str(), candidate.c_str());
        }
        return candidate;
    }
    return base;
}

bool RunClaim::claim_alone(const std::string& dir, const std::string& name) {
    release();
    try {
        folder_ = OutputFolder::open(dir);
    } catch (const OutputError&) {
        return true;  // reported with the outputs
    }
    return try_claim(name) != Outcome::Taken;
}

void RunClaim::release() {
    if (fd_ >= 0) {
        // Unlinked while still locked: a process that opened the old file finds it replaced.
        if (owner_ == ::getpid()) ::unlinkat(folder_.fd(), name_.c_str(), 0);
        ::close(fd_);
        fd_ = -1;
    }
    folder_ = OutputFolder();
}

}  // namespace ringprof::detail
