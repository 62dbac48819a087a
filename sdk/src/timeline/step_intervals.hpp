// The steps seen so far, on the tick clock, so a span of any thread can be labeled with the step
// that was running when it began. Used on the timeline writer thread only.
//
// Steps usually come from one thread and follow each other, so the lookup checks the newest step
// first; overlapping steps (several stepping threads, GLOBAL around TRAIN) resolve to the one that
// began last. Memory is bounded: only the newest kMaxSteps steps are kept, older spans lose
// their label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace ringprof::detail {

class StepIntervals {
public:
    static constexpr std::size_t kMaxSteps = 1 << 16;
    static constexpr std::uint64_t kOpen = ~std::uint64_t{0};

    void open(std::uint64_t begin_ticks, std::int64_t step, std::uint32_t tid, std::uint32_t mode);
    void close(std::uint64_t begin_ticks, std::uint64_t end_ticks, std::uint32_t tid, std::uint32_t mode);
    // The step running at `ticks`, if any.
    std::optional<std::int64_t> step_at(std::uint64_t ticks) const;
    std::size_t size() const { return steps_.size(); }

private:
    struct Interval {
        std::uint64_t begin;
        std::uint64_t end;  // kOpen while running
        std::int64_t step;
        std::uint32_t tid;
        std::uint32_t mode;
    };
    std::deque<Interval> steps_;  // sorted by begin
    // Where the last lookup's search ended (the first step beginning after its time). Spans come
    // nearly in time order, so the next lookup usually ends there too: checked in O(1) against
    // its neighbours' begins, searched only when it does not hold (a stale index, after an
    // insert or a pop, simply fails the check).
    mutable std::size_t cursor_ = 0;
};

}  // namespace ringprof::detail
