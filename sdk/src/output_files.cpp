#include "ringprof/output_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ringprof {

namespace {
std::string describe(const std::string& what, const std::string& path, int err) {
    return what + " '" + path + "': " + std::strerror(err);
}
}  // namespace

void ensure_output_dir(const std::string& dir) {
    if (dir.empty()) return;
    std::string partial;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
        pos = dir.find('/', pos + 1);
        partial = dir.substr(0, pos);
        if (partial.empty()) continue;
        if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) {
            throw OutputError(describe("cannot create output folder", partial, errno));
        }
    }
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0) throw OutputError(describe("cannot use output folder", dir, errno));
    if (!S_ISDIR(st.st_mode)) throw OutputError("cannot use output folder '" + dir + "': not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        throw OutputError(describe("cannot write into output folder", dir, errno));
    }
}

void write_file_atomically(const std::string& path, std::string_view content) {
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) throw OutputError(describe("cannot create", tmp, errno));
    const std::size_t written = std::fwrite(content.data(), 1, content.size(), f);
    const int write_errno = errno;
    const bool flushed = std::fflush(f) == 0;
    const int flush_errno = errno;
    if (std::fclose(f) != 0 || written != content.size() || !flushed) {
        const int err = written != content.size() ? write_errno : (!flushed ? flush_errno : errno);
        std::remove(tmp.c_str());
        throw OutputError(describe("cannot write", path, err != 0 ? err : EIO) +
                          " (the previous version, if any, is kept)");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(tmp.c_str());
        throw OutputError(describe("cannot replace", path, err));
    }
}

}  // namespace ringprof
