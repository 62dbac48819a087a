#include "session/drop_report.hpp"

#include <cstdio>
#include <string>

#include "record/ring_room.hpp"
#include "record/slow_path_counts.hpp"

namespace ringprof::detail {

namespace {
// "tid:value,tid:value" for the threads where `value` is not zero.
template <typename Value>
std::string by_thread(const Snapshot& s, Value value) {
    std::string out;
    for (const ThreadInfo& t : s.threads) {
        const std::string v = value(t);
        if (v.empty()) continue;
        if (!out.empty()) out += ',';
        out += std::to_string(t.tid) + ':' + v;
    }
    return out;
}
}  // namespace

void add_ring_metadata(const Snapshot& s, TimerTree& tree) {
    tree.set_metadata("ring_waits", std::to_string(s.waits));
    tree.set_metadata("ring_wait_ns", std::to_string(s.wait_ns));
    const std::string drops =
        by_thread(s, [](const ThreadInfo& t) { return t.dropped ? std::to_string(t.dropped) : std::string(); });
    if (!drops.empty()) tree.set_metadata("dropped_scopes_by_thread", drops);
    // tid:waits:ns
    const std::string waits = by_thread(s, [](const ThreadInfo& t) {
        return t.waits ? std::to_string(t.waits) + ':' + std::to_string(t.wait_ns) : std::string();
    });
    if (!waits.empty()) tree.set_metadata("ring_waits_by_thread", waits);
    tree.set_metadata("ring_growths", std::to_string(s.growths));
    tree.set_metadata("ring_growth_ns", std::to_string(s.growth_ns));
    // tid:growths:ns
    const std::string growths = by_thread(s, [](const ThreadInfo& t) {
        return t.growths ? std::to_string(t.growths) + ':' + std::to_string(t.growth_ns) : std::string();
    });
    if (!growths.empty()) tree.set_metadata("ring_growths_by_thread", growths);
}

void DropReport::on_snapshot(const Snapshot& s, std::uint64_t timeline_dropped, OnFull policy, bool final) {
    if (s.dropped == 0 && timeline_dropped == 0) return;
    if (said_ && !final) return;
    said_ = true;
    std::string line = "ringprof: " + std::string(final ? "at the end of the session, " : "");
    if (s.dropped != 0) {
        std::uint64_t threads = 0;
        for (const ThreadInfo& t : s.threads) threads += t.dropped != 0 ? 1 : 0;
        const std::uint64_t ringless = ringless_drops();
        line += std::to_string(s.dropped) + " scopes dropped (" + std::to_string(threads) + " thread(s)";
        if (ringless != 0) line += ", " + std::to_string(ringless) + " on threads that could get no ring memory";
        const std::uint64_t in_handlers = signal_handler_drops();
        if (in_handlers != 0)
            line += ", " + std::to_string(in_handlers) + " in signal handlers, where markers are refused";
        line += in_handlers == s.dropped ? ")"
                : policy == OnFull::Drop
                    ? "); set RINGPROF_ON_FULL=wait to keep every scope"
                    : "); RINGPROF_ON_FULL=wait could not wait (no drainer: after fork, at exit, a stopped "
                      "session or a blocked backend); a larger RINGPROF_RING_BYTES leaves more room";
    }
    if (timeline_dropped != 0) {
        if (s.dropped != 0) line += "; ";
        line += std::to_string(timeline_dropped) +
                " timeline spans dropped (the writer fell behind); raise RINGPROF_TIMELINE_QUEUE_SPANS or set "
                "RINGPROF_TIMELINE_MAX_DEPTH / RINGPROF_TIMELINE_MIN_NS";
    }
    std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace ringprof::detail
