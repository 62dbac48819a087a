#include <map>
#include <set>
#include <string>

#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

struct Name {
    std::string_view name;
    StatsSort sort;
};

// pstats' keys, in the order of pstats.Stats.sort_arg_dict_default: the abbreviations depend
// on it.
constexpr Name kNames[] = {
    {"calls", StatsSort::Calls},           {"ncalls", StatsSort::Calls},      {"cumtime", StatsSort::Cumulative},
    {"cumulative", StatsSort::Cumulative}, {"filename", StatsSort::Filename}, {"line", StatsSort::Line},
    {"module", StatsSort::Filename},       {"name", StatsSort::Name},         {"nfl", StatsSort::Nfl},
    {"pcalls", StatsSort::Pcalls},         {"stdname", StatsSort::Stdname},   {"time", StatsSort::Tottime},
    {"tottime", StatsSort::Tottime},
};

// Every spelling pstats' get_sort_arg_defs accepts, built by its rule: each key and its
// prefixes, shortest last, until a prefix an earlier key already took; such a prefix is
// refused ("cum", "c"), the shorter ones stay with whoever took them first ("cu").
std::map<std::string, StatsSort, std::less<>> accepted_spellings() {
    std::map<std::string, StatsSort, std::less<>> accepted;
    std::set<std::string> refused;
    for (const Name& n : kNames) {
        for (std::size_t len = n.name.size(); len > 0; --len) {
            std::string fragment(n.name.substr(0, len));
            if (accepted.count(fragment) != 0) {
                refused.insert(std::move(fragment));
                break;
            }
            accepted.emplace(std::move(fragment), n.sort);
        }
    }
    for (const std::string& r : refused) accepted.erase(r);
    return accepted;
}

}  // namespace

std::optional<StatsSort> parse_stats_sort(std::string_view key) {
    // The old profiler's integers, which pstats still takes.
    if (key == "-1") return StatsSort::Stdname;
    if (key == "0") return StatsSort::Calls;
    if (key == "1") return StatsSort::Tottime;
    if (key == "2") return StatsSort::Cumulative;
    static const auto* const spellings = new std::map<std::string, StatsSort, std::less<>>(accepted_spellings());
    const auto it = spellings->find(key);
    return it != spellings->end() ? std::optional<StatsSort>(it->second) : std::nullopt;
}

const char* stats_sort_keys() {
    return "calls, cumulative, tottime, name, filename, line, stdname, pcalls, nfl (and pstats' aliases ncalls, "
           "cumtime, time, module, their unambiguous prefixes, and -1, 0, 1, 2)";
}

}  // namespace ringprof
