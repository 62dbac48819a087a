// A fresh folder per test under the build tree, removed when the test passes.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ringprof::testing {

class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info->test_suite_name()) + "_" + info->name();
        for (char& c : name) {
            if (c == '/') c = '_';
        }
        path_ = std::filesystem::path(RINGPROF_TEST_BINARY_DIR) / "tmp" / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        if (!::testing::Test::HasFailure()) {
            std::error_code ec;
            std::filesystem::remove_all(path_, ec);
        }
    }
    std::string str() const { return path_.string(); }
    std::filesystem::path path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Test sizes shrink under sanitizers (RINGPROF_TEST_SCALE=10 divides loop counts by 10).
inline long scaled(long n) {
    const char* v = std::getenv("RINGPROF_TEST_SCALE");
    const long div = v != nullptr ? std::max(1L, std::atol(v)) : 1L;
    return std::max(1L, n / div);
}

}  // namespace ringprof::testing
