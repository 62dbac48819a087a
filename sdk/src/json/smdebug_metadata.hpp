// The metadata lines of smdebug's timeline format, written by ringprof's pythontimeline backend
// and by `ringprof merge`: the phase (a "process") and thread names, and the time base. Each line
// starts with ",\n", as every line after a file's first does. Names are written as JSON strings
// with `non_ascii` (the merge escapes as smdebug's json.dumps does; the backend keeps UTF-8).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "json/json_text.hpp"

namespace ringprof::detail {

// process_name with the phase's name, then process_sort_index (smdebug sorts a phase by its pid).
void append_phase_metadata(std::string& out, std::int64_t pid, std::string_view phase, NonAscii non_ascii);

// thread_name of (pid, tid).
void append_thread_metadata(std::string& out, std::int64_t pid, std::int64_t tid, std::string_view name,
                            NonAscii non_ascii);

// pid 0's process_name carrying the file's time base, and its sort index: what a pythontimeline
// file opens with (smdebug reads the file's events against it). Without the leading ",\n".
void append_time_base(std::string& out, std::int64_t base_us);

}  // namespace ringprof::detail
