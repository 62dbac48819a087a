// Which ringprof thread the caller is on. Backend callbacks run on the drainer (snapshots,
// on_start) and on the timeline writer (spans); an API call made from there must not wait for
// the thread it is running on, so the session checks this first.
#pragma once

#include <cstdint>

namespace ringprof::detail {

enum class ThreadRole : std::uint8_t { User, Drainer, TimelineWriter };

inline thread_local ThreadRole t_thread_role = ThreadRole::User;

}  // namespace ringprof::detail
