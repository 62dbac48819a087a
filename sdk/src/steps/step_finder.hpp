// smdebug's step of an event without step_num: the lowest-numbered step whose span (over the
// Step:ModeKeys events that carry a step, on every process and host) strictly contains the
// event's start and end. None when no step does (smdebug stops there with an IndexError).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "steps/step_events.hpp"

namespace ringprof::detail {

class StepFinder {
public:
    explicit StepFinder(const std::map<std::int64_t, StepSpan>& marks);
    std::optional<std::int64_t> step_of(TraceNumber start, TraceNumber end) const;

private:
    struct Entry {
        StepSpan span;
        std::int64_t step;
    };
    std::vector<Entry> by_start_;     // sorted by start
    std::vector<TraceNumber> reach_;  // the latest end among by_start_[0..i]
};

}  // namespace ringprof::detail
