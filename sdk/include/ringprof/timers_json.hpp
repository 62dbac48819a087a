// Reading and writing ML-Agents timers JSON (`<run_id>_timers.json`), both forms.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "ringprof/config.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {

// The whole file's text: 4-space indentation, Python-style floats, keys in ML-Agents' order.
std::string write_timers_json(const TimerTree& tree, TimersFormat format);

// A file that is not a timers tree: the message names the source and the position.
class TimersJsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Either form (children as a list or as an object; gauges as a list or an object), including
// files written by ML-Agents itself. `source` names the input in error messages.
TimerTree parse_timers_json(std::string_view text, std::string_view source = "<input>");
// Reads and parses a file; errors name the path.
TimerTree load_timers_json(const std::string& path);

}  // namespace ringprof
