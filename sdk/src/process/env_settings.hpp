// Reading RINGPROF_* environment variables. A malformed value is reported once on stderr and
// ignored (the default stays), so a typo never stops the program being measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringprof::detail {

std::optional<std::string> env_string(const char* name);
// A whole number from `min` to `max`. Anything else (not a number, negative, beyond 64 bits,
// out of range) is refused with one message naming the variable and the accepted range, and
// the default stays: a value that wrapped silently would act as another setting.
std::optional<std::uint64_t> env_unsigned(const char* name, std::uint64_t min, std::uint64_t max);
std::optional<bool> env_bool(const char* name);
std::vector<std::string> split_list(std::string_view comma_separated);
void warn_env(const char* name, std::string_view value, std::string_view problem);

}  // namespace ringprof::detail
