#include "test_binary_dir.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

namespace ringprof::testing {
namespace {

// Read from the command line itself rather than from GoogleTest's parsed flag: the folder is
// needed before main() (static initialisers, the chdir below) and must not change afterwards.
std::string gtest_filter() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string flag = "--gtest_filter=";
    std::string filter;
    for (size_t start = 0; start < cmdline.size();) {
        const size_t end = cmdline.find('\0', start);
        const std::string arg = cmdline.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (arg.compare(0, flag.size(), flag) == 0) filter = arg.substr(flag.size());
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (filter.empty()) {
        const char* env = std::getenv("GTEST_FILTER");
        if (env != nullptr) filter = env;
    }
    return filter;
}

std::string folder_name(std::string filter) {
    for (char& c : filter) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           c == '.' || c == '-';
        if (!plain) c = '_';
    }
    if (filter.size() > 200) filter.resize(200);  // a file name's limit is 255 bytes
    return filter;
}

const std::string& compute() {
    static const std::string dir = [] {
        std::filesystem::path p(RINGPROF_TEST_AREA_DIR);
        const std::string filter = gtest_filter();
        if (!filter.empty() && filter != "*") p /= folder_name(filter);
        std::error_code ec;
        std::filesystem::create_directories(p, ec);
        if (ec) std::fprintf(stderr, "ringprof tests: cannot create %s: %s\n", p.c_str(), ec.message().c_str());
        return p.string();
    }();
    return dir;
}

// Outputs written relative to the current directory (Config's default ./ringprof_out) land in
// the test's own folder too.
[[maybe_unused]] const bool entered = [] {
    if (::chdir(compute().c_str()) != 0) std::perror(("ringprof tests: chdir " + compute()).c_str());
    return true;
}();

}  // namespace

const char* test_binary_dir() { return compute().c_str(); }

}  // namespace ringprof::testing
