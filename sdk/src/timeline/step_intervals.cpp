#include "timeline/step_intervals.hpp"

#include <algorithm>
#include <cstddef>

namespace ringprof::detail {

namespace {
// How far back from the newest step a lookup walks to find one still covering the time; steps
// that overlap more than this (dozens of stepping threads) resolve to an older step or none.
constexpr std::size_t kOverlapWalk = 16;
}  // namespace

void StepIntervals::open(std::uint64_t begin_ticks, std::int64_t step, std::uint32_t tid, std::uint32_t mode) {
    const Interval in{begin_ticks, kOpen, step, tid, mode};
    if (steps_.empty() || steps_.back().begin <= begin_ticks) {
        steps_.push_back(in);
    } else {
        // Another thread's ring was read first: keep the order by begin.
        auto at = std::upper_bound(steps_.begin(), steps_.end(), begin_ticks,
                                   [](std::uint64_t t, const Interval& s) { return t < s.begin; });
        steps_.insert(at, in);
    }
    if (steps_.size() > kMaxSteps) steps_.pop_front();
}

void StepIntervals::close(std::uint64_t begin_ticks, std::uint64_t end_ticks, std::uint32_t tid, std::uint32_t mode) {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
        if (it->begin < begin_ticks) break;
        if (it->begin == begin_ticks && it->tid == tid && it->mode == mode) {
            it->end = end_ticks;
            return;
        }
    }
}

std::optional<std::int64_t> StepIntervals::step_at(std::uint64_t ticks) const {
    // No steps (a program without PROF_STEP): every span of it comes here, and the deque
    // arithmetic below doubled the writer's cost of the lookup (callgrind, docs/perf/drain.md).
    if (steps_.empty()) return std::nullopt;
    // The first step beginning after `ticks`: sorted by begin, so it is the index whose previous
    // step begins at or before `ticks` and which itself begins after (or is the end).
    std::size_t at = cursor_;
    const std::size_t n = steps_.size();
    const bool cursor_holds =
        at <= n && (at == n || ticks < steps_[at].begin) && (at == 0 || steps_[at - 1].begin <= ticks);
    if (!cursor_holds) {
        at = static_cast<std::size_t>(std::upper_bound(steps_.begin(), steps_.end(), ticks,
                                                       [](std::uint64_t t, const Interval& s) { return t < s.begin; }) -
                                      steps_.begin());
    }
    cursor_ = at;
    auto it = steps_.begin() + static_cast<std::ptrdiff_t>(at);
    for (std::size_t walked = 0; it != steps_.begin() && walked < kOverlapWalk; ++walked) {
        --it;
        if (ticks < it->end) return it->step;
    }
    return std::nullopt;
}

}  // namespace ringprof::detail
