#include "process/env_settings.hpp"

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace ringprof::detail {

std::optional<std::string> env_string(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

void warn_env(const char* name, std::string_view value, std::string_view problem) {
    std::fprintf(stderr, "ringprof: ignoring %s='%.*s': %.*s\n", name, static_cast<int>(value.size()), value.data(),
                 static_cast<int>(problem.size()), problem.data());
}

std::optional<std::uint64_t> env_unsigned(const char* name, std::uint64_t min, std::uint64_t max) {
    auto v = env_string(name);
    if (!v) return std::nullopt;
    std::uint64_t n = 0;
    bool valid = true;
    for (const char c : *v) {
        if (c < '0' || c > '9') {
            valid = false;
            break;
        }
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (n > (UINT64_MAX - digit) / 10) {
            valid = false;  // beyond 64 bits
            break;
        }
        n = n * 10 + digit;
    }
    if (!valid || n < min || n > max) {
        warn_env(name, *v,
                 "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                     "; the default is kept");
        return std::nullopt;
    }
    return n;
}

std::optional<bool> env_bool(const char* name) {
    auto v = env_string(name);
    if (!v) return std::nullopt;
    if (*v == "1" || *v == "true" || *v == "on" || *v == "yes") return true;
    if (*v == "0" || *v == "false" || *v == "off" || *v == "no") return false;
    warn_env(name, *v, "expected 0 or 1");
    return std::nullopt;
}

std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const std::size_t comma = s.find(',');
        std::string_view item = s.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

}  // namespace ringprof::detail
