// Function markers that also record their arguments' types and shapes, so the statistics table
// (ringprof/profile.hpp, docs/stats.md) has one row per distinct call signature:
//
//     float dot(const std::vector<float>& a, const std::vector<float>& b) {
//         PROF_FUNCTION_SIG(a, b);  // dot.cpp:7(dot(a:vector<float>(shape=(16,)), b:...))
//         ...
//     }
//
// Recognised: arithmetic types, std::vector, std::array, C arrays, std::string and
// std::string_view (length), std::span (C++20), a pointer with a length (ringprof::span_of(p, n)),
// and any type with a ringprof::signature_traits specialization. Anything else is recorded by its
// type name alone. Types are described at compile time; a call stores only sizes, in the ring.
#pragma once

#include "ringprof/detail/signature_codec.hpp"
#include "ringprof/markers.hpp"  // PROF_FUNCTION_SIG itself

#if RINGPROF_ENABLED
#include "ringprof/detail/signature_scope.hpp"
#endif
