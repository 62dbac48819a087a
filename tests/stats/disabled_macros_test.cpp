// With RINGPROF_ENABLED=0 a signature marker is no code at all: nothing is recorded.
#define RINGPROF_ENABLED 0
#include <gtest/gtest.h>

#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace {

float compiled_out(const std::vector<float>& a) {
    PROF_FUNCTION_SIG(a);
    return a.empty() ? 0.0f : a.front();
}

TEST(DisabledMacros, SignatureMarkersCompileToNothing) {
    ringprof::testing::TempDir dir;
    ringprof::Profile p(ringprof::testing::fake_clock_options(dir));
    p.enable();
    EXPECT_EQ(compiled_out(std::vector<float>(4, 2.0f)), 2.0f);
    p.disable();
    EXPECT_TRUE(p.stats().empty());
}

}  // namespace
