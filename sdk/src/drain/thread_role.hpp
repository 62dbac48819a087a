// Which ringprof thread the caller is on. Backend callbacks run on the drainer (snapshots,
// on_start) and on the timeline writer (spans); an API call made from there must not wait for
// the thread it is running on, so the session checks this first.
#pragma once

#include <pthread.h>

#include <cstdint>

namespace ringprof::detail {

enum class ThreadRole : std::uint8_t { User, Drainer, TimelineWriter };

inline thread_local ThreadRole t_thread_role = ThreadRole::User;

// Called first on the drainer and the writer thread. The name is what top -H, perf and gdb show
// for the thread (15 characters at most), where it would otherwise carry the program's name.
inline void take_role(ThreadRole role) {
    t_thread_role = role;
    ::pthread_setname_np(::pthread_self(), role == ThreadRole::Drainer ? "ringprof-drain" : "ringprof-write");
}

}  // namespace ringprof::detail
