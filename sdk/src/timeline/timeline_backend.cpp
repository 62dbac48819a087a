// What ringprof/timeline_backend.hpp offers writers of timeline files, on the engine's own
// clock and JSON text.
#include "ringprof/timeline_backend.hpp"

#include "drain/clock_calibration.hpp"
#include "json/json_text.hpp"

namespace ringprof {

std::uint64_t wall_clock_ns() { return detail::ClockCalibration::epoch_ns(); }

void append_json_string(std::string& out, std::string_view s) { detail::append_json_string(out, s); }

}  // namespace ringprof
