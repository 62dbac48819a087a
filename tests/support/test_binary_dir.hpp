// RINGPROF_TEST_BINARY_DIR: the scratch folder of the running test program, one per ctest entry.
// ctest runs each test as its own process (`--gtest_filter=Suite.Name`), possibly beside others
// (`ctest -j`); a folder per filter lets every test keep fixed names under it (flame_cli/,
// ./ringprof_out, run ids) without meeting another process's files. Force-included into every
// test source by tests/CMakeLists.txt, so tests keep writing `std::string(RINGPROF_TEST_BINARY_DIR)`.
#pragma once

namespace ringprof::testing {

// <build>/tests/<area>/<filter> for `--gtest_filter=<filter>`, <build>/tests/<area> without one;
// computed once per process, created, and made the current directory before main().
const char* test_binary_dir();

}  // namespace ringprof::testing

#define RINGPROF_TEST_BINARY_DIR ::ringprof::testing::test_binary_dir()
