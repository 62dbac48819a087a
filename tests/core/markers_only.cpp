// A file that marks code and includes nothing but <ringprof/markers.hpp>: every marker must
// compile here, and none of the feature headers may come with it.
#include "ringprof/markers.hpp"

#include <type_traits>

#include "markers_only.hpp"

// Probes: a name ringprof has not declared resolves, through the using-directive, to the probe
// of the same name; one it has declared (its header was included) hides the probe.
namespace ringprof_absent {
struct FunctionStats {};  // ringprof/stats.hpp
struct Profile {};        // ringprof/profile.hpp
struct Snapshot {};       // ringprof/backend.hpp (which brings stats.hpp)
struct FlameProfile {};   // ringprof/flame.hpp
struct MergeResult {};    // ringprof/merged_timeline.hpp
struct TimerTree {};      // ringprof/timer_tree.hpp
struct Session {};        // ringprof/session.hpp
namespace detail {
struct SignatureSite {};  // ringprof/signature.hpp's detail/signature_site.hpp
struct TypeDesc {};
}  // namespace detail
}  // namespace ringprof_absent
namespace ringprof {
using namespace ringprof_absent;
namespace detail {
using namespace ringprof_absent::detail;
}
}  // namespace ringprof

static_assert(std::is_same_v<ringprof::FunctionStats, ringprof_absent::FunctionStats>,
              "markers.hpp must not include ringprof/stats.hpp");
static_assert(std::is_same_v<ringprof::Profile, ringprof_absent::Profile>,
              "markers.hpp must not include ringprof/profile.hpp");
static_assert(std::is_same_v<ringprof::Snapshot, ringprof_absent::Snapshot>,
              "markers.hpp must not include ringprof/backend.hpp");
static_assert(std::is_same_v<ringprof::FlameProfile, ringprof_absent::FlameProfile>,
              "markers.hpp must not include ringprof/flame.hpp");
static_assert(std::is_same_v<ringprof::MergeResult, ringprof_absent::MergeResult>,
              "markers.hpp must not include ringprof/merged_timeline.hpp");
static_assert(std::is_same_v<ringprof::TimerTree, ringprof_absent::TimerTree>,
              "markers.hpp must not include ringprof/timer_tree.hpp");
static_assert(std::is_same_v<ringprof::Session, ringprof_absent::Session>,
              "markers.hpp must not include ringprof/session.hpp");
static_assert(std::is_same_v<ringprof::detail::SignatureSite, ringprof_absent::detail::SignatureSite>,
              "markers.hpp must not include the signature templates");
static_assert(std::is_same_v<ringprof::detail::TypeDesc, ringprof_absent::detail::TypeDesc>,
              "markers.hpp must not include the signature templates");

namespace markers_only {

void marked_step(int step, double loss) {
    PROF_STEP(step);
    PROF_FUNCTION();
    { PROF_SCOPE("inner"); }
    PROF_GAUGE("loss", loss);
}

void marked_eval_step(int step) {
    PROF_STEP_MODE(step, ringprof::StepMode::Eval);
    PROF_SCOPE("evaluate");
}

}  // namespace markers_only
