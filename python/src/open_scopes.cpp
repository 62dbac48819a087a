#include "open_scopes.hpp"

#include <memory>

namespace ringprof::python {

__thread ThreadState* t_state = nullptr;

namespace {
// Frees the thread's state when the thread ends.
struct StateOwner {
    std::unique_ptr<ThreadState> state;
    ~StateOwner() { t_state = nullptr; }
};
thread_local StateOwner t_owner;
}  // namespace

ThreadState* make_thread_state() noexcept {
    try {
        t_owner.state = std::make_unique<ThreadState>();
        t_owner.state->frames.reserve(64);
        t_owner.state->key.reserve(64);
    } catch (...) {
        return nullptr;
    }
    t_state = t_owner.state.get();
    return t_state;
}

}  // namespace ringprof::python
