// With RINGPROF_ENABLED=0 every marker is gone: nothing is recorded and nothing is evaluated.
#define RINGPROF_ENABLED 0
#include <gtest/gtest.h>

#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

void compiled_out_work() {
    PROF_FUNCTION();
    PROF_SCOPE("never_recorded");
}

TEST(CompiledOut, MarkersRecordNothing) {
    testing::TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "off";
    c.backends = {"timers"};
    Session session(c);
    for (int i = 0; i < 100; ++i) compiled_out_work();
    const Snapshot s = session.snapshot();
    EXPECT_TRUE(s.tree.root.children.empty());
}

}  // namespace
}  // namespace ringprof
