#include "system_stats/numpy_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ringprof::detail {

namespace {

constexpr std::ptrdiff_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE
constexpr std::ptrdiff_t kBufferSize = 8192;    // numpy's NPY_BUFSIZE: a reduction's inner-loop length

double pairwise_sum(const double* a, std::ptrdiff_t n) {
    if (n < 8) {
        double res = 0.;
        for (std::ptrdiff_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= kPairwiseBlock) {
        double r[8];
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        std::ptrdiff_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    std::ptrdiff_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

}  // namespace

double numpy_sum(const std::vector<double>& values) {
    double total = 0.;  // add's identity, the reduction's start
    const auto n = static_cast<std::ptrdiff_t>(values.size());
    for (std::ptrdiff_t at = 0; at < n; at += kBufferSize)
        total += pairwise_sum(values.data() + at, std::min(kBufferSize, n - at));
    return total;
}

double numpy_mean(const std::vector<double>& values) { return numpy_sum(values) / static_cast<double>(values.size()); }

double numpy_percentile_linear(const std::vector<double>& sorted, double q) {
    const std::size_t n = sorted.size();
    const double virtual_index = static_cast<double>(n - 1) * q;
    std::size_t previous, next;
    double gamma;
    if (virtual_index >= static_cast<double>(n - 1)) {
        previous = next = n - 1;
        gamma = 0;
    } else {
        const double floor = std::floor(virtual_index);
        previous = static_cast<std::size_t>(floor);
        next = previous + 1;
        gamma = virtual_index - floor;
    }
    const double a = sorted[previous], b = sorted[next];
    const double diff = b - a;
    return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

}  // namespace ringprof::detail
