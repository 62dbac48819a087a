#include "process/run_claim.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ringprof::detail {

namespace {
constexpr int kMaxCandidates = 64;  // "<run_id>_<pid>", then "_2"... (pids can repeat across hosts)

std::string claim_name(const std::string& run_id) { return "." + run_id + ".ringprof_claim"; }
}  // namespace

RunClaim::~RunClaim() { release(); }

namespace {
// Tells this program image from an earlier one of the same process (exec keeps the pid): the
// address of this static (randomized per image) and the clock at its first use (read in user
// space, as the vDSO serves it).
unsigned long long this_image() {
    static const unsigned long long image =
        static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        reinterpret_cast<std::uintptr_t>(&image);
    return image;
}

// Who made a claim file ("<pid> <image>\n"); zeros where it says nothing.
struct ClaimHolder {
    long long pid = 0;
    unsigned long long image = 0;
};
ClaimHolder holder_in(int fd) {
    char text[64] = {};
    ClaimHolder h;
    if (::pread(fd, text, sizeof text - 1, 0) <= 0) return h;
    char* rest = nullptr;
    h.pid = std::strtoll(text, &rest, 10);
    h.image = std::strtoull(rest, nullptr, 10);
    return h;
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
            // left by this pid and another image is an earlier image of this process, whose files
            // the new image must not replace, whether or not that image had ended its session.
            // (A later session of this image takes its run id again, as before.)
            if (!created) {
                const ClaimHolder h = holder_in(fd);
                if (h.pid == static_cast<long long>(self) && h.image != this_image()) {
                    ::close(fd);
                    return Outcome::HeldByEarlierImage;
                }
            }
            fd_ = fd;
            // For a curious reader, and for an exec'd image to recognise its predecessor; only
            // into a file this user owns (a file another user made is used, not written).
            if (created || held.st_uid == ::geteuid()) {
                const std::string holder = std::to_string(self) + " " + std::to_string(this_image()) + "\n";
                if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) < 0) {
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
        // The file stays, naming its holder: an image this process execs later finds it and keeps
        // this image's files. Closing it drops the lock (in a forked child, the parent's lock is
        // not its own and stays).
        ::close(fd_);
        fd_ = -1;
    }
    folder_ = OutputFolder();
}

}  // namespace ringprof::detail
