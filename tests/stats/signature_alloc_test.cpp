// Recording a signature allocates nothing: global operator new is replaced in this test binary
// and counts the allocations of the thread that asked to be watched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace {
thread_local bool t_watching = false;
thread_local long t_allocations = 0;

void* counted_alloc(std::size_t n) {
    if (t_watching) ++t_allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (t_watching) ++t_allocations;
    return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    if (t_watching) ++t_allocations;
    return std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace stats_alloc {
struct Tensor {
    std::size_t rows, cols;
};
}  // namespace stats_alloc

template <>
struct ringprof::signature_traits<stats_alloc::Tensor> {
    static constexpr const char* name = "Tensor";
    using element_type = float;
    static constexpr std::size_t max_rank = 2;
    static std::size_t rank(const stats_alloc::Tensor&) noexcept { return 2; }
    static std::uint64_t dim(const stats_alloc::Tensor& t, std::size_t i) noexcept { return i == 0 ? t.rows : t.cols; }
};

namespace {

float kernel(const std::vector<float>& a, const std::string& label, const stats_alloc::Tensor& t, int n) {
    PROF_FUNCTION_SIG(a, label, t, n);
    return a.empty() ? 0.0f : a[0] + static_cast<float>(label.size() + t.rows + static_cast<std::size_t>(n));
}

TEST(SignatureAllocation, TheCounterSeesAllocations) {
    // Through a volatile pointer, so the compiler cannot elide the allocation (clang does).
    static int* volatile sink = nullptr;
    t_watching = true;
    sink = new int(1);
    t_watching = false;
    delete sink;
    EXPECT_EQ(t_allocations, 1);
    t_allocations = 0;
}

TEST(SignatureAllocation, RecordingASignatureAllocatesNothing) {
    ringprof::testing::TempDir dir;
    auto options = ringprof::testing::fake_clock_options(dir);
    options.session->ring_bytes = std::size_t{1} << 20;
    ringprof::Profile profile(options);
    profile.enable();
    const std::vector<float> a(16, 1.0f), b(8, 1.0f);
    const std::string label = "layer";
    const stats_alloc::Tensor t{2, 3};
    float sink = kernel(a, label, t, 1);  // the thread's first event registers its ring
    const long calls = ringprof::testing::scaled(2000);
    t_allocations = 0;
    t_watching = true;
    for (long i = 0; i < calls; ++i) sink += kernel(i % 2 ? a : b, label, t, static_cast<int>(i));
    t_watching = false;
    EXPECT_EQ(t_allocations, 0);
    profile.disable();
    std::uint64_t recorded = 0, dropped = ringprof::dropped_scopes();
    for (const auto& f : profile.stats()) recorded += f.counts.ncalls;
    EXPECT_EQ(recorded + dropped, static_cast<std::uint64_t>(calls) + 1);
    EXPECT_GT(recorded, 1u);
    EXPECT_GT(sink, 0.0f);
}

}  // namespace
