// The markers' process-wide state, defined in exactly one place so that every module linking the
// library (statically into a program, or as libringprof.so shared by a program, the Python module
// and user extensions) reads the same state and the same per-thread ring.
#include "ringprof/detail/recorder.hpp"
#include "ringprof/detail/signature_scope.hpp"

namespace ringprof::detail {

RINGPROF_HOT_PATH_GLOBAL std::atomic<std::uint8_t> g_state{kNotStarted};
RINGPROF_HOT_PATH_GLOBAL __thread Ring* t_ring = nullptr;
RINGPROF_HOT_PATH_GLOBAL std::atomic<bool> g_record_signatures{true};

}  // namespace ringprof::detail
