#include "scenario.hpp"

#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace stats_scenario {

using ringprof::testing::advance_ms;

const int kLeafLine = __LINE__ + 2;
void leaf() {
    PROF_FUNCTION();
    advance_ms(1);
}

const int kDotLine = __LINE__ + 2;
float dot(const std::vector<float>& a, const std::vector<float>& b) {
    PROF_FUNCTION_SIG(a, b);
    advance_ms(a.size());
    float sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}

const int kRecurseLine = __LINE__ + 2;
void recurse(int n) {
    PROF_FUNCTION();
    advance_ms(2);
    if (n > 1) recurse(n - 1);
    leaf();
}

const int kTopLine = __LINE__ + 2;
void top() {
    PROF_FUNCTION();
    advance_ms(3);
    const std::vector<float> a16(16, 1.0f), b16(16, 2.0f), a8(8, 1.0f), b8(8, 2.0f);
    dot(a16, b16);
    dot(a8, b8);
    dot(a16, b16);
    recurse(2);
}

}  // namespace stats_scenario
