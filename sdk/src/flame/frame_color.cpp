#include "flame/frame_color.hpp"

#include <cstdio>

namespace ringprof::detail {

std::uint32_t name_hash(std::string_view name) {
    std::uint32_t h = 2166136261u;  // FNV-1a: stable across platforms and runs
    for (unsigned char c : name) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

std::string frame_color(std::string_view name, bool parallel) {
    const std::uint32_t h = name_hash(name);
    const double a = static_cast<double>(h & 0xffff) / 65535.0;
    const double b = static_cast<double>(h >> 16) / 65535.0;
    int r, g, bl;
    if (parallel) {
        r = 70 + static_cast<int>(50 * a);
        g = 150 + static_cast<int>(50 * b);
        bl = 215 + static_cast<int>(30 * a);
    } else {
        r = 225 + static_cast<int>(30 * b);
        g = 100 + static_cast<int>(110 * a);
        bl = 40 + static_cast<int>(40 * b);
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", r, g, bl);
    return buf;
}

}  // namespace ringprof::detail
