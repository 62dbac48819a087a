// Feeds arbitrary bytes to the stats JSON reader; a profile that reads must also print as a table.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "ringprof/stats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto stats = ringprof::parse_stats_json(text, "fuzz");
        std::ostringstream table;
        ringprof::print_stats_table(table, stats, ringprof::StatsTableOptions{});
    } catch (const ringprof::StatsFileError&) {
    }
    return 0;
}
