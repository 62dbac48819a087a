#include "merge/event_order.hpp"

namespace ringprof::detail {

bool reads_before(const TraceFile& a, const TraceFile& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
    return a.path < b.path;
}

}  // namespace ringprof::detail
