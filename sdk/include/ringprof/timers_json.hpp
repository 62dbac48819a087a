// Reading and writing ML-Agents timers JSON (`<run_id>_timers.json`), both forms.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ringprof/config.hpp"
#include "ringprof/timer_tree.hpp"

namespace ringprof {

// The whole file's text: 4-space indentation, Python-style floats, keys in ML-Agents' order.
// A tree holding a number the file cannot carry (see unwritable_timers_number) is refused:
// TimersJsonError naming the node, and nothing written.
std::string write_timers_json(const TimerTree& tree, TimersFormat format);

// The first number of `tree` that timers JSON cannot carry so that every reader reads back what
// was written: a total that is not finite (a sum that overflowed) or a count above 2^53. The
// answer names the node by its path ("node 'root/train/forward': count ... is above 2^53") or
// the gauge; empty when every number fits.
std::optional<std::string> unwritable_timers_number(const TimerTree& tree);

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
