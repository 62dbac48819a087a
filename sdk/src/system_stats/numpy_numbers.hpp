// The numbers pandas computes, to the last bit, so ringprof's statistics print as smdebug's
// DataFrames do (repr of each double): a mean is numpy's sum / count, and numpy sums with its
// pairwise summation (blocks of 128 summed 8 lanes at a time, halves above that) over runs of at
// most 8192 values (its buffer), which are then added in turn; a percentile is numpy's linear
// method ((n - 1) * q, floor, and its lerp that subtracts from the upper value for gamma >= 0.5).
#pragma once

#include <vector>

namespace ringprof::detail {

double numpy_sum(const std::vector<double>& values);
double numpy_mean(const std::vector<double>& values);
// `sorted` ascending; q in [0, 1].
double numpy_percentile_linear(const std::vector<double>& sorted, double q);

}  // namespace ringprof::detail
