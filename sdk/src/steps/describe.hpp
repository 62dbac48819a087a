// pandas' Series.describe() numbers for a handful of step durations: mean, min, max and
// percentiles by linear interpolation between the two nearest ranks (numpy's "linear" method,
// including its way of computing the blend, so that the last bits agree with smdebug's).
#pragma once

#include <vector>

namespace ringprof::detail {

struct Described {
    double mean = 0, min = 0, max = 0, p50 = 0, p95 = 0, p99 = 0;
};

// `sorted` ascending, not empty.
double linear_quantile(const std::vector<double>& sorted, double q);
Described describe(std::vector<double> values);  // values not empty

// The median and the median absolute deviation from it (unscaled), of a non-empty set.
double median_of(std::vector<double> values);
double median_absolute_deviation(const std::vector<double>& values, double median);

// For each value, the median of all the others (as median_of would give it, to the bit), in the
// values' order; empty for one value. One sort for all of them, not one per value: a step of a
// job with hundreds of ranks asks this of every rank.
std::vector<double> medians_of_others(const std::vector<double>& values);

}  // namespace ringprof::detail
