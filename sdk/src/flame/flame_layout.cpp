#include "flame/flame_layout.hpp"

#include <cmath>
#include <cstdio>

namespace ringprof::detail {

double layout_span(const TimerNode& node) {
    double sum = 0.0;
    for (const TimerNode& c : node.children) sum += c.total;
    return sum > node.total ? sum : node.total;
}

std::string format_seconds(double seconds) {
    struct Unit {
        double scale;
        const char* name;
    };
    static const Unit units[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "\xC2\xB5s"}, {1e-9, "ns"}};
    const double a = std::fabs(seconds);
    const Unit* u = &units[3];
    for (const Unit& candidate : units) {
        if (a >= candidate.scale) {
            u = &candidate;
            break;
        }
    }
    const double v = seconds / u->scale;
    char buf[48];
    // Three significant digits are what a reader compares at a glance.
    const int decimals = std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
    std::snprintf(buf, sizeof buf, "%.*f %s", a == 0.0 ? 0 : decimals, v, a == 0.0 ? "s" : u->name);
    return buf;
}

}  // namespace ringprof::detail
