// A marker's static identity. Every PROF_* macro defines one `static constexpr Site`, so an
// event carries a pointer to it instead of a string: nothing is copied or hashed on the hot path.
#pragma once

#include <cstdint>

namespace ringprof {

// Aligned to 16 so the low four bits of a Site pointer are free to carry the event kind.
struct alignas(16) Site {
    const char* name;      // what the timer tree and timelines call it
    const char* function;  // the enclosing function (__func__)
    const char* file;
    std::uint32_t line;
};

}  // namespace ringprof
