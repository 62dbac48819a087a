// Turns a signature marker's compile-time description and one call's runtime words into the
// text of a statistics row: "(a:vector<float>(shape=(16,)), n:int32)". Drainer side only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringprof/detail/signature_site.hpp"

namespace ringprof::detail {

// `words` holds the record's runtime words in the order the arguments wrote them.
std::string format_signature(const SignatureSite& site, const std::uint64_t* words);

// The macro's argument text split at top-level commas, trimmed; `ringprof::span_of(p, n)` is
// named after its pointer, `p`.
std::vector<std::string> split_argument_names(std::string_view text);

// The type named by a __PRETTY_FUNCTION__ of a function template on T.
std::string type_name_from_probe(std::string_view pretty);

}  // namespace ringprof::detail
