#include "steps/describe.hpp"

#include <algorithm>
#include <cmath>

namespace ringprof::detail {

double linear_quantile(const std::vector<double>& sorted, double q) {
    const double position = static_cast<double>(sorted.size() - 1) * q;
    const double below = std::floor(position);
    const auto lo = static_cast<std::size_t>(below);
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double t = position - below;
    const double a = sorted[lo], b = sorted[hi];
    // numpy blends from the nearer end: a + (b - a) t below one half, b - (b - a)(1 - t) from it.
    const double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

Described describe(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    Described d;
    double sum = 0;
    for (double v : values) sum += v;
    d.mean = sum / static_cast<double>(values.size());
    d.min = values.front();
    d.max = values.back();
    d.p50 = linear_quantile(values, 0.5);
    d.p95 = linear_quantile(values, 0.95);
    d.p99 = linear_quantile(values, 0.99);
    return d;
}

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return linear_quantile(values, 0.5);
}

double median_absolute_deviation(const std::vector<double>& values, double median) {
    std::vector<double> deviations;
    deviations.reserve(values.size());
    for (double v : values) deviations.push_back(std::fabs(v - median));
    return median_of(std::move(deviations));
}

std::vector<double> medians_of_others(const std::vector<double>& values) {
    const std::size_t n = values.size();
    if (n < 2) return {};
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> sorted(n);
    for (std::size_t k = 0; k < n; ++k) sorted[k] = values[order[k]];
    // The others of the value at sorted position p are `sorted` without p; their median is
    // linear_quantile's at one half over n - 1 values, read through that gap.
    const std::size_t m = n - 1;
    const double position = static_cast<double>(m - 1) * 0.5;
    const double below = std::floor(position);
    const auto lo = static_cast<std::size_t>(below);
    const std::size_t hi = std::min(lo + 1, m - 1);
    const double t = position - below;
    std::vector<double> out(n);
    for (std::size_t p = 0; p < n; ++p) {
        const double a = sorted[lo < p ? lo : lo + 1], b = sorted[hi < p ? hi : hi + 1];
        const double diff = b - a;
        out[order[p]] = t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
    }
    return out;
}

}  // namespace ringprof::detail
