#include "record/marker_cost.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "ringprof/detail/ring.hpp"
#include "ringprof/site.hpp"

namespace ringprof::detail {

namespace {
constexpr Site kProbe{"ringprof_marker_cost_probe", "measure_marker_cost_ticks", __FILE__, __LINE__};
}

std::uint64_t measure_marker_cost_ticks() {
    constexpr std::uint64_t kPairs = 2048;
    std::unique_ptr<Event[]> slots(new Event[2 * kPairs]());
    Ring ring(slots.get(), 2 * kPairs);
    std::array<std::uint64_t, 7> runs{};
    for (std::uint64_t& run : runs) {
        ring.release(ring.readable_head());
        const std::uint64_t start = read_ticks();
        for (std::uint64_t i = 0; i < kPairs; ++i) {
            // What a Scope does: room check, clock, publish; clock, publish.
            if (ring.try_begin(make_tag(&kProbe, EventKind::Begin))) {
                ring.end(make_tag(&kProbe, EventKind::End), read_ticks());
            }
        }
        run = (read_ticks() - start) / kPairs;
    }
    std::nth_element(runs.begin(), runs.begin() + runs.size() / 2, runs.end());
    return runs[runs.size() / 2];
}

}  // namespace ringprof::detail
