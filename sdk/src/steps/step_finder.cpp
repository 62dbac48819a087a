#include "steps/step_finder.hpp"

#include <algorithm>

namespace ringprof::detail {

StepFinder::StepFinder(const std::map<std::int64_t, StepSpan>& marks) {
    for (const auto& [step, span] : marks) by_start_.push_back({span, step});
    std::stable_sort(by_start_.begin(), by_start_.end(),
                     [](const Entry& a, const Entry& b) { return compare(a.span.start, b.span.start) < 0; });
    for (const Entry& e : by_start_) {
        reach_.push_back(reach_.empty() || compare(reach_.back(), e.span.end) < 0 ? e.span.end : reach_.back());
    }
}

std::optional<std::int64_t> StepFinder::step_of(TraceNumber start, TraceNumber end) const {
    // The steps starting before the event, walked back while one of them can still reach past
    // its end: steps that do not overlap cost a binary search and a look or two.
    const auto past = std::partition_point(by_start_.begin(), by_start_.end(),
                                           [&](const Entry& e) { return compare(e.span.start, start) < 0; });
    std::optional<std::int64_t> best;
    for (auto i = static_cast<std::size_t>(past - by_start_.begin()); i-- > 0;) {
        if (compare(reach_[i], end) <= 0) break;
        if (compare(by_start_[i].span.end, end) > 0 && (!best || by_start_[i].step < *best)) best = by_start_[i].step;
    }
    return best;
}

}  // namespace ringprof::detail
