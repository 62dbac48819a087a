// Which sanitizer the test program was built with, for GCC (which defines __SANITIZE_*__) and
// clang (which answers __has_feature instead): the ASan+UBSan build is clang's, TSan GCC's.
#pragma once

#if defined(__has_feature)
#define RINGPROF_TEST_HAS_FEATURE(f) __has_feature(f)
#else
#define RINGPROF_TEST_HAS_FEATURE(f) 0
#endif

namespace ringprof::testing {

#if defined(__SANITIZE_THREAD__) || RINGPROF_TEST_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

#if defined(__SANITIZE_ADDRESS__) || RINGPROF_TEST_HAS_FEATURE(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Shadow memory and interceptors: RSS, address space and the cost of an atomic are the sanitizer's.
inline constexpr bool kSanitized = kThreadSanitizer || kAddressSanitizer;

}  // namespace ringprof::testing
