#include "ringprof/stats.hpp"

namespace ringprof {

std::optional<StatsSort> parse_stats_sort(std::string_view key) {
    struct Name {
        std::string_view name;
        StatsSort sort;
    };
    // pstats' keys and their aliases.
    static constexpr Name kNames[] = {
        {"calls", StatsSort::Calls},          {"ncalls", StatsSort::Calls},
        {"cumulative", StatsSort::Cumulative}, {"cumtime", StatsSort::Cumulative},
        {"tottime", StatsSort::Tottime},       {"time", StatsSort::Tottime},
        {"name", StatsSort::Name},             {"filename", StatsSort::Filename},
        {"file", StatsSort::Filename},         {"line", StatsSort::Line},
        {"stdname", StatsSort::Stdname},
    };
    for (const Name& n : kNames) {
        if (n.name == key) return n.sort;
    }
    return std::nullopt;
}

const char* stats_sort_keys() { return "calls, cumulative, tottime, name, filename, line, stdname"; }

}  // namespace ringprof
