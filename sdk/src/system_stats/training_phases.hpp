// smdebug's training phases (PandasFrameAnalysis.get_training_phase_intervals) and what its job
// statistics need from the framework timelines, read from the inputs `ringprof merge` reads.
//
// The rules, as smdebug's code has them (docs/system_metrics.md names them):
// - times are microseconds since the first system file's minute (PandasFrame's start_time, from the
//   file name), as PandasFrame subtracts it from every time;
// - the phases are the process names (a pid's process_name) that contain "Step:ModeKeys", in order
//   of first appearance; an event is a phase's when its name (args.layer_name, else args.name,
//   else the event's name) is one of them;
// - one phase: each such event is an interval of its own; several: runs of consecutive events of
//   one phase are one interval, the earliest start to the latest end;
// - between two intervals, "Between <a> and <b>" (the two names sorted) from the first's end + 1
//   to the next's start - 1; before the first, "Before <first>" from the earliest system sample;
//   after the last, "After <last>" to the latest system sample;
// - a system row's phase is the last interval, in that order, whose closed range holds its time.
// Events are taken in the order the files are read (smdebug's reader: the files in order, each
// file's events in order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringprof::detail {

struct PhaseInterval {
    long double start_us = 0, end_us = 0;  // relative to the first system file, both included
    std::string phase;
};

// One event of the framework timelines that the job statistics or the phases need.
struct PhaseEvent {
    std::string metric;
    long double start_us = 0, end_us = 0;  // relative, as above
    bool is_float = false;                 // written as a fraction: smdebug's numbers are floats then
    std::int64_t step = -1;                // args.step_num; -1 when absent
    std::string node;                      // the file's node, as its name gives it
};

struct FrameworkPhases {
    std::vector<std::string> phases;       // process names holding "Step:ModeKeys", first-seen order
    std::vector<PhaseEvent> step_events;   // events whose name holds "Step:ModeKeys", in reading order
    std::optional<long double> max_end_us;  // latest end of any framework event, relative
    bool max_end_is_float = false;
    std::uint64_t events = 0;
    std::vector<std::string> notes;  // files left out and malformed events, named
};

// Reads <path>'s framework timelines (as merge finds them); times relative to `origin_us`.
// Throws std::runtime_error when there are none.
FrameworkPhases read_framework_phases(const std::string& path, std::int64_t origin_us);

// get_training_phase_intervals() for every phase, sorted as smdebug sorts them; `sys_min_us` and
// `sys_max_us` bound the first and last. Empty when the timelines have no phase.
std::vector<PhaseInterval> training_phase_intervals(const FrameworkPhases& f, long double sys_min_us,
                                                    long double sys_max_us);

// The phase of a system row at `ts_us` (relative): the last interval holding it; null if none.
const std::string* phase_at(const std::vector<PhaseInterval>& intervals, long double ts_us);

}  // namespace ringprof::detail
