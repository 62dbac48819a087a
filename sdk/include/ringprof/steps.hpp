// Training steps on the timeline.
//
//     for (int step = 0; step < steps; ++step) {
//         PROF_STEP(step);                                   // step `step`, mode TRAIN
//         train_step();
//     }                                                      // the step ends with the block
//     { PROF_STEP_MODE(k, ringprof::StepMode::Eval); evaluate(); }
//
// A step is a scope: it lasts from the marker to the end of the enclosing block. Every span that
// begins while a step runs, on any thread, carries the step's number in the timelines
// (pythontimeline `args.step_num`, trace.json.gz `args.step`), and the step itself appears as a
// `Step:ModeKeys.<MODE>` event, the name SageMaker Debugger's tools merge by.
// Like PROF_SCOPE, a step marker costs two ring writes and never allocates, locks or blocks.
#pragma once

#include <cstdint>

#include "ringprof/detail/event.hpp"
#include "ringprof/detail/recorder.hpp"
#include "ringprof/site.hpp"

namespace ringprof {

// smdebug's ModeKeys, in the order they are encoded in a step event.
enum class StepMode : std::uint8_t { Train = 0, Eval = 1, Predict = 2, Global = 3 };

namespace detail {
// One static site per mode: a step travels to the timeline backends as a Span whose site is one
// of these, so it needs no field of its own in Span.
inline constexpr Site kStepSites[4] = {
    {"Step:ModeKeys.TRAIN", "", "", 0},
    {"Step:ModeKeys.EVAL", "", "", 0},
    {"Step:ModeKeys.PREDICT", "", "", 0},
    {"Step:ModeKeys.GLOBAL", "", "", 0},
};

class StepScope {
public:
    StepScope(std::int64_t step, StepMode mode) noexcept {
        const auto m = static_cast<std::uint64_t>(mode) & 3u;
        Event record[2] = {Event{0, make_tag(m, EventKind::StepBegin)}, payload(static_cast<std::uint64_t>(step))};
        scope_.open(record, 2, make_tag(m, EventKind::StepEnd));
    }

private:
    RecordScope scope_;
};
}  // namespace detail

// For backends: the mode of a step span (Span::site is a step site), or -1 for any other span.
inline int step_mode_of(const Site* site) noexcept {
    for (int m = 0; m < 4; ++m) {
        if (site == &detail::kStepSites[m]) return m;
    }
    return -1;
}

inline const char* step_mode_name(int mode) noexcept {
    static constexpr const char* kNames[4] = {"TRAIN", "EVAL", "PREDICT", "GLOBAL"};
    return mode >= 0 && mode < 4 ? kNames[mode] : "TRAIN";
}

}  // namespace ringprof

// PROF_STEP and PROF_STEP_MODE, with every other marker.
#include "ringprof/markers.hpp"
