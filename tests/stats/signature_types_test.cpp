// What PROF_FUNCTION_SIG records for each kind of argument, read back from the statistics.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fake_clock.hpp"
#include "ringprof/ringprof.hpp"

namespace stats_test {

// A user tensor whose element type is known only at run time.
struct Tensor {
    std::vector<std::size_t> shape;
    const char* dtype;
};

// A user image with a compile-time element type.
struct Image {
    std::size_t height, width, channels;
};

struct Opaque {
    int x;
};

}  // namespace stats_test

template <>
struct ringprof::signature_traits<stats_test::Tensor> {
    static constexpr const char* name = "Tensor";
    static constexpr std::size_t max_rank = 3;
    static std::size_t rank(const stats_test::Tensor& t) noexcept { return t.shape.size(); }
    static std::uint64_t dim(const stats_test::Tensor& t, std::size_t i) noexcept { return t.shape[i]; }
    static const char* dtype(const stats_test::Tensor& t) noexcept { return t.dtype; }
};

template <>
struct ringprof::signature_traits<stats_test::Image> {
    static constexpr const char* name = "Image";
    using element_type = std::uint8_t;
    static constexpr std::size_t max_rank = 3;
    static std::size_t rank(const stats_test::Image&) noexcept { return 3; }
    static std::uint64_t dim(const stats_test::Image& m, std::size_t i) noexcept {
        return i == 0 ? m.height : i == 1 ? m.width : m.channels;
    }
};

namespace {

void containers(const std::vector<float>& v, const std::array<double, 4>& arr, const int (&carr)[2][3],
                const std::vector<std::vector<int>>& nested) {
    PROF_FUNCTION_SIG(v, arr, carr, nested);
}

void text(const std::string& s, std::string_view sv, const char* cs) { PROF_FUNCTION_SIG(s, sv, cs); }

void scalars(int n, double x, bool flag, std::uint64_t big, char c) { PROF_FUNCTION_SIG(n, x, flag, big, c); }

void pointers(const float* p, std::size_t n) { PROF_FUNCTION_SIG(p, ringprof::span_of(p, n)); }

void user_types(const stats_test::Tensor& t, const stats_test::Image& img, const stats_test::Opaque& o) {
    PROF_FUNCTION_SIG(t, img, o);
}

void no_arguments() { PROF_FUNCTION_SIG(); }

class SignatureTypes : public ::testing::Test {
protected:
    void SetUp() override {
        profile_ = std::make_unique<ringprof::Profile>(ringprof::testing::fake_clock_options(dir_));
        profile_->enable();
    }
    // The signature of the only row named `function`.
    std::string signature_of(const std::string& function) {
        profile_->disable();
        std::string found;
        int rows = 0;
        for (const auto& f : profile_->stats()) {
            if (f.name == function) {
                found = f.signature;
                ++rows;
            }
        }
        EXPECT_EQ(rows, 1) << function;
        return found;
    }

    ringprof::testing::TempDir dir_;
    std::unique_ptr<ringprof::Profile> profile_;
};

TEST_F(SignatureTypes, Containers) {
    const int carr[2][3] = {};
    containers(std::vector<float>(3), {}, carr, std::vector<std::vector<int>>(2));
    EXPECT_EQ(signature_of("containers"),
              "(v:vector<float>(shape=(3,)), arr:array<double, 4>, carr:int32[2][3], "
              "nested:vector<vector<int32>>(shape=(2,)))");
}

TEST_F(SignatureTypes, Strings) {
    text("hello", "hi", "c-string");
    EXPECT_EQ(signature_of("text"), "(s:string(len=5), sv:string_view(len=2), cs:const char*)");
}

TEST_F(SignatureTypes, ArithmeticTypes) {
    scalars(1, 2.0, true, 3, 'x');
    EXPECT_EQ(signature_of("scalars"), "(n:int32, x:double, flag:bool, big:uint64, c:char)");
}

TEST_F(SignatureTypes, PointerAndPointerWithLength) {
    const float data[5] = {};
    pointers(data, 5);
    EXPECT_EQ(signature_of("pointers"), "(p:float*, p:float*(shape=(5,)))");
}

TEST_F(SignatureTypes, UserTypesThroughTraitsAndUnknownTypesByName) {
    user_types(stats_test::Tensor{{2, 3}, "float32"}, stats_test::Image{4, 5, 3}, stats_test::Opaque{1});
    EXPECT_EQ(signature_of("user_types"),
              "(t:Tensor(dtype=float32, shape=(2, 3)), img:Image<uint8>(shape=(4, 5, 3)), o:stats_test::Opaque)");
}

TEST_F(SignatureTypes, RankBeyondTheTraitsMaximumIsElided) {
    user_types(stats_test::Tensor{{1, 2, 3, 4, 5}, "int8"}, stats_test::Image{1, 1, 1}, stats_test::Opaque{1});
    EXPECT_EQ(signature_of("user_types"),
              "(t:Tensor(dtype=int8, shape=(1, 2, 3, ...)), img:Image<uint8>(shape=(1, 1, 1)), o:stats_test::Opaque)");
}

TEST_F(SignatureTypes, NoArguments) {
    no_arguments();
    EXPECT_EQ(signature_of("no_arguments"), "()");
}

TEST_F(SignatureTypes, SameTextFromDifferentDtypeStringsIsOneRow) {
    // Two distinct "float32" arrays at different addresses print alike: one row, two calls.
    static const char a[] = "float32";
    static const char b[] = "float32";
    user_types(stats_test::Tensor{{2}, a}, stats_test::Image{1, 1, 1}, stats_test::Opaque{1});
    user_types(stats_test::Tensor{{2}, b}, stats_test::Image{1, 1, 1}, stats_test::Opaque{1});
    signature_of("user_types");
    for (const auto& f : profile_->stats()) {
        if (f.name == "user_types") {
            EXPECT_EQ(f.counts.ncalls, 2u);
        }
    }
}

TEST_F(SignatureTypes, SignaturesOffGivesOneRowPerFunction) {
    profile_.reset();
    auto options = ringprof::testing::fake_clock_options(dir_);
    options.signatures = false;
    profile_ = std::make_unique<ringprof::Profile>(options);
    profile_->enable();
    scalars(1, 2.0, true, 3, 'x');
    scalars(1, 2.0, true, 3, 'y');
    EXPECT_EQ(signature_of("scalars"), "");
    for (const auto& f : profile_->stats()) EXPECT_EQ(f.counts.ncalls, 2u);
}

}  // namespace
