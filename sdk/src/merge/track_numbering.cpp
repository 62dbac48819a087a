#include "merge/track_numbering.hpp"

#include <algorithm>

#include "json/smdebug_metadata.hpp"
#include "merge/event_order.hpp"
#include "merge/merged_line.hpp"

namespace ringprof::detail {

namespace {

// smdebug orders the timeline's processes by giving each kind of phase its own pid range; the
// first listed substring found in the phase name decides.
struct PidRange {
    const char* substring;
    std::int64_t first;
};
constexpr PidRange kRanges[] = {
    {"Step:", 1},       {"Forward", 10000}, {"Backward", 20000},      {"DataIterator", 30000},  {"Dataset", 40000},
    {"/device", 50000}, {"/host", 60000},   {"gpu_functions", 70000}, {"cpu_functions", 80000}, {"Horovod", 90000},
    {nullptr, 1000000}};
constexpr std::size_t kRangeCount = sizeof kRanges / sizeof kRanges[0];

}  // namespace

TrackNumbering::TrackNumbering(std::vector<TrackFirst> first, const std::vector<std::string>& phase_names,
                               const std::vector<std::string>& thread_labels, const std::vector<Kind>& kinds)
    : tracks_(thread_labels.size()) {
    std::sort(first.begin(), first.end(),
              [](const TrackFirst& a, const TrackFirst& b) { return event_before(a.start, a.seq, b.start, b.seq); });
    std::vector<std::int64_t> pid_of_phase(phase_names.size(), -1);
    std::int64_t next_in_range[kRangeCount];
    for (std::size_t r = 0; r < kRangeCount; ++r) next_in_range[r] = kRanges[r].first;
    std::int64_t next_tid = 1;
    for (const TrackFirst& f : first) {
        Track& t = tracks_[f.thread];
        t.first_seq = f.seq;
        std::int64_t& pid = pid_of_phase[f.phase];
        if (pid < 0) {
            const std::string& phase = phase_names[f.phase];
            std::size_t r = 0;
            while (kRanges[r].substring && phase.find(kRanges[r].substring) == std::string::npos) ++r;
            pid = next_in_range[r]++;
            append_phase_metadata(t.announce, pid, phase, NonAscii::escape);
            t.announce_lines += 2;
        }
        const Kind kind = f.thread < kinds.size() ? kinds[f.thread] : Kind::thread_events;
        if (kind == Kind::counters) {
            t.middle = merged_line::middle(pid, 0, "C");
            t.after_ts = merged_line::kCounterAfterTs;
            continue;
        }
        if (kind == Kind::instants) {
            t.middle = merged_line::middle(pid, 0, "i");
            t.after_ts = merged_line::kInstantAfterTs;
            continue;
        }
        const std::int64_t tid = next_tid++;
        append_thread_metadata(t.announce, pid, tid, thread_labels[f.thread], NonAscii::escape);
        ++t.announce_lines;
        t.middle = merged_line::middle(pid, tid);
    }
}

}  // namespace ringprof::detail
