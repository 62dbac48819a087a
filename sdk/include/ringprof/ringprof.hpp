// ringprof: scope markers for hot loops.
//
//     #include <ringprof/ringprof.hpp>
//     void train_step() {
//         PROF_FUNCTION();                 // a timer named "train_step"
//         { PROF_SCOPE("env_step"); ... }  // nested under it
//     }
//
// Each marker writes two 16-byte events (clock ticks + a pointer to a static site) into the
// calling thread's ring: no allocation, lock, exception or system call once the thread has
// recorded its first event. A background drainer builds the aggregates and the timelines.
// Compile with RINGPROF_ENABLED=0 to remove every marker; ringprof::disable() pauses at run time.
//
// This header is the whole API (markers, sessions, backends, statistics, signatures, worker
// trees). A file that only marks code can include <ringprof/markers.hpp> instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/backend.hpp"
#include "ringprof/config.hpp"
#include "ringprof/session.hpp"
#include "ringprof/site.hpp"
#include "ringprof/timer_tree.hpp"

#include "ringprof/markers.hpp"
#include "ringprof/context.hpp"
#include "ringprof/worker_tree.hpp"
#include "ringprof/profile.hpp"
#include "ringprof/signature.hpp"
#include "ringprof/steps.hpp"
#include "ringprof/signal_handler.hpp"

namespace ringprof {

// Recording on/off at run time (a disabled marker costs one load and one branch).
void enable() noexcept;
void disable() noexcept;
bool is_enabled() noexcept;

// Drains every ring and writes a snapshot through every backend of the current session.
void flush();

// Scopes refused because a ring was full, over all threads of the current session.
std::uint64_t dropped_scopes() noexcept;
// The same per thread (and each thread's name).
std::vector<ThreadInfo> thread_drops();

// Names the calling thread in every output (otherwise its OS name is used). Never throws: out of
// memory, the thread keeps its name and stderr says so.
void set_thread_name(std::string_view name) noexcept;

// Key/value pairs written in the root "metadata" of the timers file.
void add_metadata(std::string_view key, std::string_view value);

}  // namespace ringprof
