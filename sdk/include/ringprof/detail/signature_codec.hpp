// Compile-time description and runtime extents of each supported argument type. Everything a
// marker needs about a type is a constexpr TypeDesc; at run time it only stores a few sizes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ringprof/detail/event.hpp"
#include "ringprof/detail/signature_site.hpp"

#if __cplusplus >= 202002L && defined(__has_include)
#if __has_include(<span>)
#include <span>
#define RINGPROF_HAS_STD_SPAN 1
#endif
#endif

namespace ringprof {

// The customization point for user types (tensors, images, matrices): specialize it with
//     static constexpr const char* name = "Tensor";
//     static constexpr std::size_t max_rank = 4;
//     static std::size_t rank(const Tensor&) noexcept;
//     static std::uint64_t dim(const Tensor&, std::size_t i) noexcept;
// and optionally `using element_type = float;` (a compile-time element type) or
//     static const char* dtype(const Tensor&) noexcept;  // a string with static storage
// See docs/stats.md. The second parameter is for enable_if-based partial specializations.
template <class T, class Enable = void>
struct signature_traits {};

// A pointer and a length, recorded as `p:float*(shape=(n,))`. Made by span_of().
template <class T>
struct PtrSpan {
    T* data;
    std::size_t size;
};
template <class T>
constexpr PtrSpan<T> span_of(T* data, std::size_t size) noexcept {
    return PtrSpan<T>{data, size};
}

namespace detail {

// Hidden: every module keeps its own descriptors. With default visibility, their static members
// would be STB_GNU_UNIQUE symbols, which make the loader keep a module that uses
// PROF_FUNCTION_SIG mapped for good: dlclose would silently not unload a user's plugin.
#pragma GCC visibility push(hidden)

// Writes 64-bit words into the payload events that follow a SigBegin, two per event.
struct WordWriter {
    Event* events;
    std::size_t next = 0;
    void put(std::uint64_t w) noexcept {
        Event& e = events[next / 2];
        if (next % 2 == 0) {
            e.tsc = w;
        } else {
            e.tag = w;
        }
        ++next;
    }
};

template <class T>
constexpr const char* type_name_probe() noexcept {
    return __PRETTY_FUNCTION__;  // "... [with T = X]" (GCC) or "... [T = X]" (Clang)
}

template <class T>
constexpr const char* arithmetic_name() noexcept {
    if constexpr (std::is_same_v<T, bool>)
        return "bool";
    else if constexpr (std::is_same_v<T, char>)
        return "char";
    else if constexpr (std::is_same_v<T, float>)
        return "float";
    else if constexpr (std::is_same_v<T, double>)
        return "double";
    else if constexpr (std::is_same_v<T, long double>)
        return "long double";
    else if constexpr (std::is_floating_point_v<T>)
        return "float";
    else {
        // Integers by width, as in fixed-width type names, so signatures read the same on LP64
        // and LLP64 (where int64_t is `long` on one and `long long` on the other).
        constexpr bool s = std::is_signed_v<T>;
        switch (sizeof(T)) {
            case 1:
                return s ? "int8" : "uint8";
            case 2:
                return s ? "int16" : "uint16";
            case 4:
                return s ? "int32" : "uint32";
            case 8:
                return s ? "int64" : "uint64";
            default:
                return s ? "int128" : "uint128";
        }
    }
}

template <class T, class = void>
struct has_user_traits : std::false_type {};
template <class T>
struct has_user_traits<T, std::void_t<decltype(signature_traits<T>::name)>> : std::true_type {};

template <class T, class = void>
struct has_element_type : std::false_type {};
template <class T>
struct has_element_type<T, std::void_t<typename signature_traits<T>::element_type>> : std::true_type {};

template <class T, class = void>
struct has_runtime_dtype : std::false_type {};
template <class T>
struct has_runtime_dtype<T, std::void_t<decltype(signature_traits<T>::dtype(std::declval<const T&>()))>>
    : std::true_type {};

template <class T, class = void>
struct arg_codec;

template <class T>
constexpr const TypeDesc* element_desc() noexcept {
    return &arg_codec<std::remove_cv_t<T>>::desc;
}

// Anything unrecognised: named by the compiler, no runtime words.
template <class T, class>
struct arg_codec {
    static constexpr TypeDesc desc{type_name_probe<T>(), nullptr, 0, TypeKind::Unknown, 0, false, false};
    static void write(const T&, WordWriter&) noexcept {}
};

template <class T>
struct arg_codec<T, std::enable_if_t<std::is_arithmetic_v<T> && !has_user_traits<T>::value>> {
    static constexpr TypeDesc desc{arithmetic_name<T>(), nullptr, 0, TypeKind::Plain, 0, false, false};
    static void write(const T&, WordWriter&) noexcept {}
};

template <class T, class A>
struct arg_codec<std::vector<T, A>, std::enable_if_t<!has_user_traits<std::vector<T, A>>::value>> {
    static constexpr TypeDesc desc{"vector", element_desc<T>(), 0, TypeKind::Template, 1, false, false};
    static void write(const std::vector<T, A>& v, WordWriter& w) noexcept { w.put(v.size()); }
};

template <class T, std::size_t N>
struct arg_codec<std::array<T, N>, std::enable_if_t<!has_user_traits<std::array<T, N>>::value>> {
    static constexpr TypeDesc desc{"array", element_desc<T>(), N, TypeKind::Template, 0, false, false};
    static void write(const std::array<T, N>&, WordWriter&) noexcept {}
};

template <class T, std::size_t N>
struct arg_codec<T[N], void> {
    static constexpr TypeDesc desc{"", element_desc<T>(), N, TypeKind::CArray, 0, false, false};
    static void write(const T (&)[N], WordWriter&) noexcept {}
};

template <class Tr, class A>
struct arg_codec<std::basic_string<char, Tr, A>, void> {
    static constexpr TypeDesc desc{"string", nullptr, 0, TypeKind::Length, 0, false, false};
    static void write(const std::basic_string<char, Tr, A>& s, WordWriter& w) noexcept { w.put(s.size()); }
};

template <class Tr>
struct arg_codec<std::basic_string_view<char, Tr>, void> {
    static constexpr TypeDesc desc{"string_view", nullptr, 0, TypeKind::Length, 0, false, false};
    static void write(std::basic_string_view<char, Tr> s, WordWriter& w) noexcept { w.put(s.size()); }
};

// C strings: their length would cost a strlen on the hot path, so only the type is recorded.
template <>
struct arg_codec<const char*, void> {
    static constexpr TypeDesc desc{"const char*", nullptr, 0, TypeKind::Plain, 0, false, false};
    static void write(const char*, WordWriter&) noexcept {}
};
template <>
struct arg_codec<char*, void> {
    static constexpr TypeDesc desc{"char*", nullptr, 0, TypeKind::Plain, 0, false, false};
    static void write(const char*, WordWriter&) noexcept {}
};

template <class T>
struct arg_codec<T*, std::enable_if_t<!std::is_same_v<std::remove_cv_t<T>, char>>> {
    static constexpr TypeDesc desc{"", element_desc<T>(), 0, TypeKind::Pointer, 0, false, false};
    static void write(const T*, WordWriter&) noexcept {}
};

template <class T>
struct arg_codec<PtrSpan<T>, void> {
    static constexpr TypeDesc desc{"", element_desc<T>(), 0, TypeKind::Pointer, 1, false, false};
    static void write(const PtrSpan<T>& s, WordWriter& w) noexcept { w.put(s.size); }
};

#if defined(RINGPROF_HAS_STD_SPAN)
template <class T, std::size_t N>
struct arg_codec<std::span<T, N>, void> {
    static constexpr bool kDynamic = N == std::dynamic_extent;
    static constexpr TypeDesc desc{
        "span", element_desc<T>(), kDynamic ? 0 : N, TypeKind::Template, kDynamic ? 1 : 0, false, false};
    static void write(const std::span<T, N>& s, WordWriter& w) noexcept {
        if constexpr (kDynamic) w.put(s.size());
    }
};
#endif

template <class T>
struct arg_codec<T, std::enable_if_t<has_user_traits<T>::value>> {
    using Traits = signature_traits<T>;
    static constexpr std::size_t kMaxRank = Traits::max_rank;
    static_assert(kMaxRank <= 16, "signature_traits::max_rank: at most 16 dimensions are recorded");
    static constexpr const TypeDesc* element() noexcept {
        if constexpr (has_element_type<T>::value) {
            return element_desc<typename Traits::element_type>();
        } else {
            return nullptr;
        }
    }
    static constexpr TypeDesc desc{Traits::name,
                                   element(),
                                   0,
                                   TypeKind::User,
                                   static_cast<std::uint8_t>(kMaxRank),
                                   true,
                                   has_runtime_dtype<T>::value};
    static void write(const T& v, WordWriter& w) noexcept {
        if constexpr (has_runtime_dtype<T>::value) {
            const char* dtype = Traits::dtype(v);
            w.put(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(dtype)));
        }
        const std::size_t rank = Traits::rank(v);
        w.put(rank);
        for (std::size_t i = 0; i < kMaxRank; ++i) {
            w.put(i < rank ? static_cast<std::uint64_t>(Traits::dim(v, i)) : 0);
        }
    }
};

// The argument list of one marker: descriptors and the writer of their runtime words.
template <class... A>
struct SignatureList {
    static constexpr std::uint32_t kCount = sizeof...(A);
    static constexpr const TypeDesc* kTypes[kCount == 0 ? 1 : kCount] = {&arg_codec<A>::desc...};
    static constexpr std::uint32_t kWords = (0u + ... + runtime_words(arg_codec<A>::desc));
    static constexpr std::uint32_t kPayloadEvents = (kWords + 1) / 2;
    static_assert(kPayloadEvents <= 32, "PROF_FUNCTION_SIG: too many runtime extents for one record");

    static void write(Event* payload, const A&... args) noexcept {
        WordWriter w{payload};
        (arg_codec<A>::write(args, w), ...);
        static_cast<void>(w);  // no arguments: nothing to write
    }
};

// Never called: names the SignatureList of the macro's arguments (arrays stay arrays).
template <class... A>
SignatureList<std::remove_cv_t<A>...> signature_of(const A&...) noexcept;

#pragma GCC visibility pop

}  // namespace detail
}  // namespace ringprof
