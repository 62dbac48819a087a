// The width rule every renderer shares, and how times read to a person.
#pragma once

#include <string>

#include "ringprof/timer_tree.hpp"

namespace ringprof::detail {

// What a node's full width stands for when laying out its children: its total, or the sum of its
// children's totals when parallel work makes that larger (children are then scaled to fit).
double layout_span(const TimerNode& node);

// "1.25 s", "3.40 ms", "12.0 µs", "850 ns".
std::string format_seconds(double seconds);

}  // namespace ringprof::detail
