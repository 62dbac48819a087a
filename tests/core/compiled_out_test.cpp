// With RINGPROF_ENABLED=0 every marker is gone: nothing is recorded and nothing is evaluated.
#define RINGPROF_ENABLED 0
#include <gtest/gtest.h>

#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

int g_evaluations = 0;
int evaluated() { return ++g_evaluations; }

void compiled_out_work() {
    PROF_FUNCTION();
    PROF_SCOPE("never_recorded");
    PROF_STEP(evaluated());
    PROF_STEP_MODE(evaluated(), StepMode::Eval);
    PROF_GAUGE("never_recorded_gauge", evaluated());
    PROF_FUNCTION_SIG(evaluated());
}

TEST(CompiledOut, MarkersRecordNothing) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "off");
    Session session(c);
    for (int i = 0; i < 100; ++i) compiled_out_work();
    const Snapshot s = session.snapshot();
    EXPECT_TRUE(s.tree.root.children.empty());
    EXPECT_TRUE(s.tree.gauges.empty());
}

TEST(CompiledOut, MarkerArgumentsAreNeverEvaluated) {
    g_evaluations = 0;
    for (int i = 0; i < 3; ++i) compiled_out_work();
    EXPECT_EQ(g_evaluations, 0) << "a compiled-out marker must not run its arguments' side effects";
    EXPECT_EQ(evaluated(), 1) << "the probe itself works";
}

}  // namespace
}  // namespace ringprof
