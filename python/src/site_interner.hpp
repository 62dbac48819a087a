// Python names are dynamic strings, while an event carries a pointer to a static Site: each
// distinct (name, file, line) gets one Site, made on first use and kept for the life of the
// process (the drainer and the outputs refer to it at any later time, exit included).
#pragma once

#include <cstdint>
#include <string_view>

#include "ringprof/site.hpp"

namespace ringprof::python {

// Thread-safe; allocates only the first time a (name, file, line) is seen. Throws
// std::bad_alloc when out of memory.
// `variant` tells apart functions that share a (name, file, line) (two lambdas on one line): the
// site's `function` is the name for variant 0, the name and "#variant" otherwise.
const Site* intern_site(std::string_view name, std::string_view file, std::uint32_t line, std::uint32_t variant = 0);

// How many distinct sites were made (documented growth: one per distinct name).
std::uint64_t interned_site_count();

}  // namespace ringprof::python
