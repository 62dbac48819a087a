#include "process/last_thread.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace ringprof::detail {

namespace {

// The state and thread count of /proc/self/stat (fields 3 and 20); false if unreadable.
bool read_process_stat(char& state, long& threads) {
    const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[1024];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
    const char* p = std::strrchr(buf, ')');
    if (p == nullptr || p[1] != ' ') return false;
    p += 2;
    state = *p;
    for (int field = 3; field < 20; ++field) {
        p = std::strchr(p, ' ');
        if (p == nullptr) return false;
        ++p;
    }
    char* end = nullptr;
    threads = std::strtol(p, &end, 10);
    return end != p;
}

std::atomic<bool> g_exiting_for_last{false};

}  // namespace

bool only_ringprofs_threads_left() noexcept {
    char state = 0;
    long threads = 0;
    if (!read_process_stat(state, threads)) return false;
    if (state != 'Z') return false;  // the first thread still runs
    // The zombie first thread is counted too.
    return threads - 1 <= quiet_threads_alive();
}

void exit_for_the_programs_last_thread() noexcept {
    if (g_exiting_for_last.exchange(true)) return;
    try {
        std::thread([] { std::exit(0); }).detach();
    } catch (...) {
        g_exiting_for_last = false;  // no thread to be had now: the next check tries again
    }
}

}  // namespace ringprof::detail
