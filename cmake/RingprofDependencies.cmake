# Every dependency comes from a Debian package (see README: the set-up commands install them).
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)          # libfmt-dev
find_package(ZLIB REQUIRED)         # zlib1g-dev
find_package(simdjson REQUIRED)     # libsimdjson-dev
# libconcurrentqueue-dev ships a header only, without a CMake package.
find_path(CONCURRENTQUEUE_INCLUDE_DIR concurrentqueue/concurrentqueue.h REQUIRED)
if(RINGPROF_BUILD_TESTS)
  find_package(GTest REQUIRED)      # libgtest-dev
endif()
if(RINGPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)  # libbenchmark-dev
endif()
