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

}  // namespace ringprof::detail
