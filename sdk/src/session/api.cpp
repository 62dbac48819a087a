// The free functions of ringprof.hpp: they act on the current session, if any. Each holds the
// session for the length of the call (PinnedSession), so a call racing with the session's end
// (another thread returning from main) completes or does nothing, and never hangs the exit.
#include <cstdio>
#include <exception>

#include "record/recording_settings.hpp"
#include "record/ring_registry.hpp"
#include "ringprof/ringprof.hpp"
#include "session/session_impl.hpp"

namespace ringprof {

void enable() noexcept {
    Session* s = Session::current();
    if (s == nullptr) {
        // No session yet: the next marker starts the default one.
        std::uint8_t expected = detail::kOff;
        detail::g_state.compare_exchange_strong(expected, detail::kNotStarted);
        return;
    }
    detail::g_state.store(s->config().custom_clock != nullptr ? detail::kSlow : detail::kOn, std::memory_order_release);
}

void disable() noexcept { detail::g_state.store(detail::kOff, std::memory_order_release); }

bool is_enabled() noexcept {
    const std::uint8_t s = detail::g_state.load(std::memory_order_relaxed);
    return s == detail::kOn || s == detail::kSlow;
}

void flush() {
    if (detail::PinnedSession s{}) s->flush();
}

std::vector<ThreadInfo> thread_drops() {
    detail::PinnedSession s;
    if (!s) return {};
    std::vector<ThreadInfo> threads = s->snapshot().threads;
    for (ThreadInfo& t : threads) t.tree = TimerNode{"root"};
    return threads;
}

std::uint64_t dropped_scopes() noexcept {
    try {
        detail::PinnedSession s;
        return !s ? 0 : s->snapshot().dropped;
    } catch (...) {
        return 0;
    }
}

void set_thread_name(std::string_view name) noexcept {
    try {
        if (detail::t_ring == detail::no_ring()) {
            // Register now so the name is attached before the thread's first scope.
            detail::ensure_default_session();
            if (detail::g_state.load() == detail::kOff) return;
            detail::ThreadRing* r =
                detail::RingRegistry::instance().register_current_thread(detail::ring_capacity_for_new_threads());
            if (r == nullptr) return;
            detail::t_ring = &r->ring();
        }
        if (detail::ThreadRing* r = detail::RingRegistry::current_thread_ring()) r->set_thread_name(std::string(name));
    } catch (const std::exception& e) {
        // Naming is a courtesy: out of memory (the copy of the name), the program goes on.
        std::fprintf(stderr, "ringprof: set_thread_name: %s; the thread keeps the name it had\n", e.what());
    }
}

void add_metadata(std::string_view key, std::string_view value) {
    detail::ensure_default_session();
    detail::PinnedSession s;
    if (!s) return;
    s->add_metadata(key, value);
}

}  // namespace ringprof
