// Functions marked in a file that includes only <ringprof/markers.hpp> (markers_only.cpp).
#pragma once

namespace markers_only {
void marked_step(int step, double loss);  // PROF_STEP, PROF_FUNCTION, PROF_SCOPE("inner"), PROF_GAUGE("loss")
void marked_eval_step(int step);          // PROF_STEP_MODE(Eval), PROF_SCOPE("evaluate")
}  // namespace markers_only
