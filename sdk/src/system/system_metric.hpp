// One row of a system-metrics file, as SageMaker writes them and smdebug reads them:
// {"Type":"cpu","Name":"cpu5","Dimension":"CPUUtilization","Value":1.36,"NodeId":"algo-1",
//  "Timestamp":1591748109.23}. The types, names and dimensions ringprof writes are listed in
// docs/system_metrics.md; the node and time are the sample's, written once per row by the writer.
#pragma once

#include <string>
#include <vector>

namespace ringprof::detail {

struct SystemMetric {
    std::string type;       // "cpu", "gpu", "memory", "i/o", "network"
    std::string name;       // "cpu5", "gpu0", "MemoryUsedPercent", a disk, an interface
    std::string dimension;  // "CPUUtilization", "GPUUtilization", ...
    double value = 0;
};

// One sample: its rows and its time (epoch seconds, with the fraction).
struct SystemSample {
    double timestamp = 0;
    std::vector<SystemMetric> metrics;
};

// A row's name as a counter track: `<Name>_<Dimension>_<NodeId>`, as smdebug's MergedTimeline
// names it (and `ringprof merge` after it), so one metric has one name in every timeline.
inline std::string counter_name(const SystemMetric& m, const std::string& node) {
    return m.name + "_" + m.dimension + "_" + node;
}

}  // namespace ringprof::detail
