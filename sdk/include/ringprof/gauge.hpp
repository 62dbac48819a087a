// Gauges: a value to watch (loss, queue length), kept as ML-Agents keeps them — the latest
// value, its min and max, and how many times it was set. A value that is not finite (NaN, an
// infinity) changes none of these: it is counted apart, as the gauge's `non_finite` in the timers
// file.
//
//     PROF_GAUGE("loss", loss);
//
// PROF_GAUGE is defined with every other marker in ringprof/markers.hpp; this header stays for
// programs that include it by name.
#pragma once

#include "ringprof/markers.hpp"
