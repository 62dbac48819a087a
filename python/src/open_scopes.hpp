// The scopes a Python thread has open. A `with` block enters and exits through two separate
// calls, so the marker's closing word (what the C++ Scope keeps in a local) is kept here, per
// thread, until the matching exit. The owner says which Python object opened the frame, so a
// scope closed out of order (asyncio tasks interleave their `with` blocks on one thread) is
// closed as such, and one closed twice is ignored, without corrupting the thread's nesting.
#pragma once

#include <cstdint>
#include <vector>

#include "ringprof/detail/recorder.hpp"

namespace ringprof::python {

struct OpenFrame {
    detail::Closing closing;
    std::uint64_t close_tag;
    const void* owner;
    // The Python frame whose `with` block opened it (running_frame_identity), or null: scopes of
    // one name opened by interleaved asyncio tasks are told apart by it.
    const void* opened_in = nullptr;
};

// What a Python thread keeps between calls. Reached through one plain TLS pointer: a
// thread_local object with a constructor would add an initialization check to every access
// (measured: 0.5% of a profiled program, beside the lookup itself).
struct ThreadState {
    std::vector<OpenFrame> frames;   // grows to the deepest nesting seen, then never allocates
    std::vector<std::uint64_t> key;  // the profile hook's scratch key (profile_hook.cpp)
    int hook_frames = 0;             // frames the profile hook opened and has not closed
    // The outermost running frame of ringprof's own Python layer, if any: the profile hook
    // records nothing below it but the profiler's own methods (profile_hook.cpp).
    const void* hidden_frame = nullptr;
    // The profile hook on this thread (profile_hook.cpp), as cProfile's is per thread: the
    // Profile recording here, the one whose window here ends once the calls it timed have
    // returned (ids; 0: none), and what the hook records.
    std::uint64_t recording_profile = 0;
    std::uint64_t closing_profile = 0;
    bool hook_active = false;
    bool hook_builtins = true;
    bool hook_signatures = true;
    std::uint32_t tid = 0;  // the OS thread id, once a Profile has needed it
};

extern __thread ThreadState* t_state;  // open_scopes.cpp

// Closes the calls the profile hook opened on this thread and can no longer close, once the hook
// was taken off the thread under them (profile_hook.cpp).
void close_calls_of_a_removed_hook(ThreadState& state) noexcept;
// The first call on a thread: makes its state (freed when the thread ends). Null when out of
// memory.
ThreadState* make_thread_state() noexcept;

inline ThreadState* thread_state() noexcept {
    ThreadState* s = t_state;
    return __builtin_expect(s != nullptr, 1) ? s : make_thread_state();
}

}  // namespace ringprof::python
