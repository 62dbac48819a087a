// Feeds arbitrary bytes to the timers JSON reader. Any outcome is fine except a crash, a hang or a
// sanitizer report: bad input must become a TimersJsonError. A tree that reads must also write.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ringprof/timers_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const ringprof::TimerTree tree = ringprof::parse_timers_json(text, "fuzz");
        (void)ringprof::write_timers_json(tree, ringprof::TimersFormat::Dict);
    } catch (const ringprof::TimersJsonError&) {
    }
    return 0;
}
