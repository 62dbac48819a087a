// Records that are not scopes but ride in the drainer's RawSpan stream to the timeline: step
// boundaries and gauge samples. Encoding them as RawSpans keeps one stream in decode order, so
// the timeline sees a step open before any span that it must label.
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/aggregator.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::detail {

// A step record's site is kStepSites[mode]; end_ticks 0 means "the step began" (it is still
// open), otherwise the record is the whole step.
inline RawSpan step_record(std::uint32_t mode, std::uint64_t begin_ticks, std::uint64_t end_ticks,
                           std::uint32_t tid, std::uint32_t depth, std::int64_t step) {
    return RawSpan{&kStepSites[mode & 3u], begin_ticks, end_ticks, tid, depth, step};
}
inline bool is_step_record(const RawSpan& r) { return step_mode_of(r.site) >= 0; }

// A gauge sample: depth is out of range for a scope, the value's bits travel in `step`.
inline constexpr std::uint32_t kGaugeDepth = 0xFFFFFFFFu;
inline RawSpan gauge_record(const Site* site, std::uint64_t ticks, std::uint32_t tid, double value) {
    std::int64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return RawSpan{site, ticks, ticks, tid, kGaugeDepth, bits};
}
inline bool is_gauge_record(const RawSpan& r) { return r.depth == kGaugeDepth; }
inline double gauge_value(const RawSpan& r) {
    double v;
    std::memcpy(&v, &r.step, sizeof v);
    return v;
}

}  // namespace ringprof::detail
