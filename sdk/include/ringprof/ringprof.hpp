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

#ifndef RINGPROF_ENABLED
#define RINGPROF_ENABLED 1
#endif

#include "ringprof/detail/recorder.hpp"
#include "ringprof/context.hpp"
#include "ringprof/gauge.hpp"
#include "ringprof/worker_tree.hpp"
#include "ringprof/profile.hpp"
#include "ringprof/signature.hpp"
#include "ringprof/steps.hpp"

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

// Names the calling thread in every output (otherwise its OS name is used).
void set_thread_name(std::string_view name);

// Key/value pairs written in the root "metadata" of the timers file.
void add_metadata(std::string_view key, std::string_view value);

}  // namespace ringprof

#define RINGPROF_CAT_(a, b) a##b
#define RINGPROF_CAT(a, b) RINGPROF_CAT_(a, b)
#define RINGPROF_UNIQUE(prefix) RINGPROF_CAT(prefix, __LINE__)

#if RINGPROF_ENABLED

#define RINGPROF_SITE_(var, name_expr)                                                         \
    static constexpr ::ringprof::Site var { name_expr, __func__, __FILE__, __LINE__ }

// A timer covering the rest of the enclosing block. `name` must be a string literal.
#define PROF_SCOPE(name)                                     \
    RINGPROF_SITE_(RINGPROF_UNIQUE(ringprof_site_), name);   \
    ::ringprof::detail::Scope RINGPROF_UNIQUE(ringprof_scope_) { &RINGPROF_UNIQUE(ringprof_site_) }

// A timer named after the enclosing function.
#define PROF_FUNCTION()                                                  \
    RINGPROF_SITE_(RINGPROF_UNIQUE(ringprof_site_), __func__);           \
    ::ringprof::detail::Scope RINGPROF_UNIQUE(ringprof_scope_) { &RINGPROF_UNIQUE(ringprof_site_) }

#else

#define PROF_SCOPE(name) static_cast<void>(0)
#define PROF_FUNCTION() static_cast<void>(0)

#endif
