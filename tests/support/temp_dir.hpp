// A fresh folder per test under the build tree, removed when the test passes.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ringprof::testing {

// Named after the test (a second one in the same test gets a number), so a failed test's files
// are easy to find: they are kept. A test that took permissions away gets them back at removal.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> made{0};
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name =
            info != nullptr ? std::string(info->test_suite_name()) + "_" + info->name() : "outside_tests";
        for (char& c : name) {
            if (c == '/') c = '_';
        }
        const int n = made++;
        if (n > 0) name += "_" + std::to_string(n);
        path_ = std::filesystem::path(RINGPROF_TEST_BINARY_DIR) / "tmp" / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        if (::testing::Test::HasFailure()) return;
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
        for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
        }
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string str() const { return path_.string(); }
    const std::filesystem::path& path() const { return path_; }

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
