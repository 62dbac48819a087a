// The events MergedTimeline adds to a merged timeline from system metrics, with its default
// filter ({"lowgpu": ()}), made as its loop makes them (smdebug's merge_timelines.py):
// - a counter ("ph": "C") per row, named "<Name>_<Dimension>_<NodeId>", args {"value": v};
// - a "sys_metrics_bottlenecks" instant ("ph": "i") at each GPUUtilization sample below 85 %,
//   whose args hold the rows within 20 ms of it (both ends included).
// Its quirks are kept, since they change the output:
// - the loop stops at the first row after the last low-GPU sample: the rows after it get no
//   counter, and a job without GPU rows (or never below 85 %) gets no system event at all;
// - the loop steps through low-GPU samples one per row past them, so with several GPUs low at
//   one time (one sample each) the next sample's first rows find a stale one and stay out of
//   its instant;
// - the row that moves the loop onto a new sample is keyed "<Name>_<Dimension><NodeId>" in that
//   instant's args (no '_' before the node), every other row "<Name>_<Dimension>_<NodeId>".
// Rows come sorted by time as pandas sorts them (system_metric_rows.hpp, numpy_argsort.hpp): the
// order of rows at one time decides which of them land in an instant, and under which key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/system_metric_rows.hpp"

namespace ringprof::detail {

struct SystemTraceEvent {
    std::int64_t ts_us = 0;
    bool instant = false;   // "i" sys_metrics_bottlenecks; otherwise a "C" counter
    std::string name;       // as JSON text, quotes included
    std::string args_json;  // {"value": 1.36} or the instant's rows
};

constexpr double kLowGpuUtilization = 85;            // %, below which a GPU sample is a bottleneck
constexpr std::int64_t kBottleneckWindowUs = 20000;  // rows this close to it are its args

// In smdebug's order of appending (a stable sort by ts_us keeps it for equal times).
std::vector<SystemTraceEvent> system_trace_events(const std::vector<SystemRow>& rows);

// The phases ("event_phase") of these events, under which they get their pids.
constexpr const char* kSystemCounterPhase = "sys_metrics";
constexpr const char* kSystemInstantPhase = "sys_metrics_bottlenecks";

}  // namespace ringprof::detail
