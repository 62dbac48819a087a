// The order pandas' sort_values(by=<one int64 column>) puts rows in: numpy's argsort with its
// default kind, quicksort, which for int64 is numpy's own introsort (median-of-three quicksort,
// insertion sort for runs of 16 or fewer, heapsort past a depth limit). It is not stable: rows with
// equal keys come out in an order that depends on the whole column. smdebug's MergedTimeline sorts
// the system metrics this way, and the order of rows at one time decides which of them land in a
// bottleneck marker and under which key (system_metric_events.hpp), so the merge reproduces it.
// This is the algorithm of numpy up to 1.24 (npysort/quicksort.cpp, aquicksort_); builds of
// numpy that dispatch argsort to a vectorized sort (x86-simd-sort, numpy 2 on AVX-512 machines)
// order equal keys differently (docs/system_metrics.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringprof::detail {

// The permutation numpy's argsort(kind="quicksort") gives for `keys`.
std::vector<std::size_t> numpy_argsort(const std::vector<std::int64_t>& keys);

}  // namespace ringprof::detail
