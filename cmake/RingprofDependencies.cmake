# Every dependency comes from a Debian package (see README: the set-up commands install them).
# Global: a project that takes ringprof in with add_subdirectory or FetchContent links these
# through ringprof::ringprof (the static archive's own dependencies) from its own directories.
set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)          # libfmt-dev
find_package(ZLIB REQUIRED)         # zlib1g-dev
find_package(simdjson REQUIRED)     # libsimdjson-dev
# libconcurrentqueue-dev ships a header only, without a CMake package.
find_path(CONCURRENTQUEUE_INCLUDE_DIR concurrentqueue/concurrentqueue.h REQUIRED)
set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL OFF)
if(RINGPROF_BUILD_TESTS)
  find_package(GTest REQUIRED)      # libgtest-dev
endif()
if(RINGPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)  # libbenchmark-dev
endif()
