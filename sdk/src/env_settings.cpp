#include "env_settings.hpp"

#include <cstdio>
#include <cstdlib>

namespace ringprof::detail {

std::optional<std::string> env_string(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

void warn_env(const char* name, std::string_view value, std::string_view problem) {
    std::fprintf(stderr, "ringprof: ignoring %s='%.*s': %.*s\n", name, static_cast<int>(value.size()),
                 value.data(), static_cast<int>(problem.size()), problem.data());
}

std::optional<std::uint64_t> env_unsigned(const char* name) {
    auto v = env_string(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v->c_str(), &end, 10);
    if (end == v->c_str() || *end != '\0' || (*v)[0] == '-') {
        warn_env(name, *v, "expected a non-negative whole number");
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(n);
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
