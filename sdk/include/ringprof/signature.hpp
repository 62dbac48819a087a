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

#ifndef RINGPROF_ENABLED
#define RINGPROF_ENABLED 1
#endif

#if RINGPROF_ENABLED

#include "ringprof/detail/signature_scope.hpp"

#define RINGPROF_SIG_CAT_(a, b) a##b
#define RINGPROF_SIG_CAT(a, b) RINGPROF_SIG_CAT_(a, b)
#define RINGPROF_SIG_LIST_(...) decltype(::ringprof::detail::signature_of(__VA_ARGS__))

// A timer named after the enclosing function, one statistics row per distinct signature of the
// arguments given (each an expression; its text names it in the signature).
#define PROF_FUNCTION_SIG(...)                                                                  \
    static constexpr ::ringprof::detail::SignatureSite RINGPROF_SIG_CAT(ringprof_sig_site_, __LINE__){ \
        {__func__, __func__, __FILE__, __LINE__},                                               \
        #__VA_ARGS__,                                                                           \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kTypes,                                                \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kCount,                                                \
        RINGPROF_SIG_LIST_(__VA_ARGS__)::kPayloadEvents};                                       \
    const ::ringprof::detail::SignatureScope<RINGPROF_SIG_LIST_(__VA_ARGS__)>                  \
        RINGPROF_SIG_CAT(ringprof_sig_scope_, __LINE__) {                                       \
        &RINGPROF_SIG_CAT(ringprof_sig_site_, __LINE__), __VA_ARGS__                            \
    }

#else

// Nothing is evaluated; naming the arguments in sizeof keeps parameters that only the marker
// used from warning as unused.
#define PROF_FUNCTION_SIG(...) static_cast<void>(sizeof(::ringprof::detail::ignore_arguments(__VA_ARGS__)))

#endif
