// What a PROF_FUNCTION_SIG marker knows at compile time, shared by the recording side (which
// writes only the runtime extents) and the drainer (which turns both into text once per
// distinct signature).
#pragma once

#include <cstdint>

#include "ringprof/site.hpp"

namespace ringprof::detail {

enum class TypeKind : std::uint8_t {
    Plain,     // `name` as is: arithmetic types, bare pointers, const char*
    Unknown,   // `name` is a __PRETTY_FUNCTION__ naming the type; parsed when interned
    Template,  // name<element[, extent]>, then shape=(...) from `rank` runtime words
    CArray,    // element[extent], nested for more dimensions
    Pointer,   // element*, then shape=(...) from `rank` runtime words (a pointer+size view)
    Length,    // name(len=...) from one runtime word: strings
    User,      // a signature_traits specialization: name[<element>](dtype=..., shape=(...))
};

// One argument type. Runtime words, in order: a dtype `const char*` if `runtime_dtype`, the
// actual rank if `dynamic_rank`, then `rank` extents (at most `rank` of them are meaningful).
struct TypeDesc {
    const char* name;
    const TypeDesc* element;  // element type of containers, pointee of pointers, else null
    std::uint64_t extent;     // compile-time extent (std::array, C arrays, fixed spans); 0: none
    TypeKind kind;
    std::uint8_t rank;
    bool dynamic_rank;
    bool runtime_dtype;
};

constexpr std::uint32_t runtime_words(const TypeDesc& d) noexcept {
    if (d.kind == TypeKind::Length) return 1;
    return static_cast<std::uint32_t>(d.runtime_dtype) + static_cast<std::uint32_t>(d.dynamic_rank) + d.rank;
}

// A SigBegin event's tag points at `site`, the first member, so the decoder may treat it as any
// other Site and recover the rest with a cast (the struct is standard-layout).
struct alignas(16) SignatureSite {
    Site site;
    const char* arg_names;         // the macro's arguments as written, comma-separated
    const TypeDesc* const* types;  // one per argument
    std::uint32_t arg_count;
    std::uint32_t payload_events;  // 16-byte events of runtime words after the SigBegin
};

inline const SignatureSite& signature_site_of(const Site* site) noexcept {
    return *reinterpret_cast<const SignatureSite*>(site);
}

}  // namespace ringprof::detail
