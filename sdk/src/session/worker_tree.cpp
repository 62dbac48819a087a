#include "ringprof/worker_tree.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "ringprof/context.hpp"
#include "ringprof/session.hpp"
#include "ringprof/timers_json.hpp"
#include "session/session_impl.hpp"

namespace ringprof {

namespace {

// 8-byte magic + 8-byte little-endian length, then the JSON text.
constexpr char kMagic[8] = {'R', 'P', 'T', 'R', 'E', 'E', '0', '1'};

bool write_all(int fd, const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

// Returns bytes read before end of stream.
std::size_t read_all(int fd, void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw std::runtime_error(std::string("ringprof: reading a worker tree: ") + std::strerror(errno));
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

}  // namespace

std::string take_worker_tree() {
    detail::ensure_default_session();
    detail::PinnedSession s;
    if (!s) return {};
    return write_timers_json(s->take_tree(), TimersFormat::Dict);
}

void merge_worker_tree(std::string_view timers_json, std::string_view graft_path) {
    const TimerTree tree = parse_timers_json(timers_json, "worker tree");
    detail::ensure_default_session();
    detail::PinnedSession s;
    if (!s) return;
    s->graft(capture_context(), graft_path, tree);
}

bool send_worker_tree(int fd) {
    const std::string json = take_worker_tree();
    unsigned char header[16];
    std::memcpy(header, kMagic, 8);
    std::uint64_t n = json.size();
    for (int i = 0; i < 8; ++i) header[8 + i] = static_cast<unsigned char>(n >> (8 * i));
    return write_all(fd, header, sizeof header) && write_all(fd, json.data(), json.size());
}

bool receive_worker_tree(int fd, std::string_view graft_path) {
    unsigned char header[16];
    const std::size_t got = read_all(fd, header, sizeof header);
    if (got == 0) return false;
    if (got < sizeof header || std::memcmp(header, kMagic, 8) != 0) {
        throw std::runtime_error("ringprof: not a worker tree message (bad header)");
    }
    std::uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(header[8 + i]) << (8 * i);
    if (n > (std::uint64_t{1} << 32)) throw std::runtime_error("ringprof: worker tree message too large");
    std::string json(static_cast<std::size_t>(n), '\0');
    if (read_all(fd, json.data(), json.size()) != json.size()) {
        throw std::runtime_error("ringprof: worker tree message truncated");
    }
    merge_worker_tree(json, graft_path);
    return true;
}

}  // namespace ringprof
