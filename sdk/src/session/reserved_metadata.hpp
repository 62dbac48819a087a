// The metadata keys ringprof writes itself. add_metadata() cannot replace them (a user's
// "dropped_scopes" once hid the real drop count): the user's value is kept under
// kUserMetadataPrefix + key instead, with a message.
#pragma once

#include <string_view>

namespace ringprof::detail {

inline constexpr std::string_view kReservedMetadataKeys[] = {
    "timer_format_version",
    "start_time_seconds",
    "ringprof_version",
    "run_id",
    "end_time_seconds",
    "marker_cost_ns",
    "marker_cost_subtracted",
    "dropped_scopes",
    "dropped_scopes_by_thread",
    "dropped_scopes_in_signal_handlers",
    "timeline_dropped_spans",
    "profiler_failures",
    "misnested_scopes",
    "scopes_ended_on_another_thread",
    "folded_deep_nodes",
    "ring_waits",
    "ring_wait_ns",
    "ring_waits_by_thread",
    "ring_growths",
    "ring_growth_ns",
    "ring_growths_by_thread",
};

inline constexpr const char* kUserMetadataPrefix = "user.";

inline bool is_reserved_metadata_key(std::string_view key) {
    for (std::string_view k : kReservedMetadataKeys) {
        if (k == key) return true;
    }
    return false;
}

}  // namespace ringprof::detail
