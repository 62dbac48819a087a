// The markers' process-wide state, defined in exactly one place so that every module linking the
// library (statically into a program, or as libringprof.so shared by a program, the Python module
// and user extensions) reads the same state and the same per-thread ring.
#include "ringprof/detail/recorder.hpp"
#include "ringprof/detail/signature_scope.hpp"

namespace ringprof::detail {

namespace {
// Never destroyed: a thread still running a marker during static destruction reads its room.
union NoRing {
    Ring ring;
    constexpr NoRing() noexcept : ring() {}
    ~NoRing() {}
};
NoRing g_no_ring;
}  // namespace

RINGPROF_HOT_PATH_GLOBAL std::atomic<std::uint8_t> g_state{kNotStarted};
RINGPROF_HOT_PATH_GLOBAL __thread Ring* t_ring = &g_no_ring.ring;
RINGPROF_HOT_PATH_GLOBAL std::atomic<bool> g_record_signatures{true};
// Never written: its slow path refuses before touching it.
RINGPROF_HOT_PATH_GLOBAL SentinelRing g_refusing_ring;

Ring* no_ring() noexcept { return &g_no_ring.ring; }

}  // namespace ringprof::detail
