// Parent contexts for work that runs on other threads. Capture where you are in the spawning
// thread; adopt it in the worker, and the worker's scopes nest under the spawning scope instead
// of its own root (ML-Agents' workers/worker_root, for threads):
//
//     PROF_SCOPE("collect");
//     ringprof::Context ctx = ringprof::capture_context();
//     pool.submit([ctx] { ringprof::AdoptContext adopt(ctx); PROF_SCOPE("env_step"); ... });
//
// Capturing writes one event into the calling thread's ring (so capture once and hand the
// context to many tasks); ordinary scopes do no extra work for this.
#pragma once

#include <cstdint>

#include "ringprof/detail/recorder.hpp"

namespace ringprof {

struct Context {
    std::uint64_t id = 0;  // 0: the root (nothing captured)
};

// Captures the calling thread's current scope as a context other threads can adopt: records one
// event marking the capture point (a context id 0, the root, if it could not be recorded).
Context capture_context() noexcept;
// capture_context() under its first name, which read like a plain getter although it records.
inline Context current_context() noexcept { return capture_context(); }

// Scopes of this thread nest under `context` until this object is destroyed.
class AdoptContext {
public:
    explicit AdoptContext(Context context) noexcept {
        if (context.id == 0) return;
        detail::Event e{0, detail::make_tag(context.id, detail::EventKind::AdoptBegin)};
        scope_.open(&e, 1, detail::make_tag(context.id, detail::EventKind::AdoptEnd));
    }

private:
    detail::RecordScope scope_;
};

}  // namespace ringprof
