// <output_dir>/<run_id>_flame.html: the interactive flame graph report (merged, side-by-side and
// per-thread views), rewritten at every snapshot. It also takes the run's spans as a timeline
// backend (after RINGPROF_TIMELINE_MIN_NS / _MAX_DEPTH) and keeps the kFlameTimelineMaxSpans
// longest for the page's time-ordered view, with the extent of every step.
#pragma once

#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "ringprof/flame.hpp"
#include "ringprof/timeline_backend.hpp"

namespace ringprof::backends {

class FlameHtmlBackend : public TimelineBackend {
public:
    // The timeline filter the session applies, so the page can say what it left out.
    explicit FlameHtmlBackend(std::uint64_t timeline_min_ns = 0, std::uint32_t timeline_max_depth = 0,
                              std::size_t max_spans = kFlameTimelineMaxSpans)
        : min_ns_(timeline_min_ns), max_depth_(timeline_max_depth), max_spans_(max_spans) {}

    const char* name() const override { return "flame"; }
    void on_start(const RunInfo& run) override;
    void on_spans(const SpanBatch& batch) override;
    void on_thread_name(std::uint32_t tid, const std::string& name) override;
    void on_timeline_flush(const TimelineStatus& status) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& path() const { return path_; }
    // The time-ordered view of the spans kept so far.
    FlameTimeline timeline() const;

private:
    struct Kept {
        std::uint64_t begin_ns, end_ns;
        const char* name;
        std::uint32_t tid, depth;
    };
    struct Longer {
        bool operator()(const Kept& a, const Kept& b) const { return a.end_ns - a.begin_ns > b.end_ns - b.begin_ns; }
    };

    std::string run_id_;
    std::string path_;
    std::uint64_t start_ns_ = 0;
    std::uint64_t min_ns_;
    std::uint32_t max_depth_;
    std::size_t max_spans_;
    std::uint64_t seen_ = 0, last_end_ns_ = 0;
    TimelineStatus status_;
    // The shortest kept span on top, so a longer newcomer replaces it in O(log n).
    std::priority_queue<Kept, std::vector<Kept>, Longer> kept_;
    std::unordered_map<std::uint32_t, std::string> thread_names_;
    std::map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> steps_;  // first begin, last end
};

}  // namespace ringprof::backends
