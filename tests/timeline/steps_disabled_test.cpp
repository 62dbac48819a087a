// With RINGPROF_ENABLED=0 the step markers compile to nothing: no record reaches the timeline,
// and the arguments are not evaluated.
#define RINGPROF_ENABLED 0
#include "ringprof/ringprof.hpp"

#include <gtest/gtest.h>

#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

int evaluations = 0;
// Never called: the markers drop their arguments unevaluated (clang notices, hence maybe_unused).
[[maybe_unused]] int next_step() { return ++evaluations; }

TEST(Steps, CompiledOutStepsProduceNothing) {
    Collected c;
    auto collect = std::make_unique<CollectingBackend>(c);
    {
        TempDir dir;
        Session session(timeline_config(dir.str(), {"timers"}));
        session.add_backend(std::move(collect));
        for (int i = 0; i < 5; ++i) {
            PROF_STEP(next_step());
            PROF_STEP_MODE(next_step(), StepMode::Eval);
        }
    }
    EXPECT_EQ(evaluations, 0);
    EXPECT_TRUE(c.spans.empty());
}

}  // namespace
}  // namespace ringprof
