#include "flame_html_backend.hpp"

#include <algorithm>

#include "ringprof/output_files.hpp"

namespace ringprof::backends {

namespace {
// A run with steps every few milliseconds for days would grow this without bound; the page
// marks at most this many (the first ones).
constexpr std::size_t kMaxSteps = 100000;
}  // namespace

void FlameHtmlBackend::on_start(const RunInfo& run) {
    run_id_ = run.run_id;
    path_ = output_path(run.output_dir, run.run_id + "_flame.html");
    start_ns_ = run.start_epoch_ns;
}

void FlameHtmlBackend::on_spans(const SpanBatch& batch) {
    for (const Span& s : batch.spans) {
        ++seen_;
        last_end_ns_ = std::max(last_end_ns_, s.end_ns);
        if (s.has_step) {
            auto it = steps_.find(s.step);
            if (it != steps_.end()) {
                it->second.first = std::min(it->second.first, s.begin_ns);
                it->second.second = std::max(it->second.second, s.end_ns);
            } else if (steps_.size() < kMaxSteps) {
                steps_.emplace(s.step, std::make_pair(s.begin_ns, s.end_ns));
            }
        }
        const Kept k{s.begin_ns, s.end_ns, s.name != nullptr ? s.name : "?", s.tid, s.depth};
        if (kept_.size() < max_spans_) {
            kept_.push(k);
        } else if (max_spans_ != 0 && Longer{}(k, kept_.top())) {
            kept_.pop();
            kept_.push(k);
        }
    }
}

void FlameHtmlBackend::on_thread_name(std::uint32_t tid, const std::string& name) { thread_names_[tid] = name; }

void FlameHtmlBackend::on_timeline_flush(const TimelineStatus& status) { status_ = status; }

FlameTimeline FlameHtmlBackend::timeline() const {
    FlameTimeline tl;
    std::vector<Kept> spans;
    spans.reserve(kept_.size());
    for (auto copy = kept_; !copy.empty(); copy.pop()) spans.push_back(copy.top());
    if (spans.empty()) return tl;
    std::uint64_t origin = start_ns_;
    for (const Kept& k : spans) origin = std::min(origin, k.begin_ns);
    // Lanes in the order their threads first ran a kept span.
    std::sort(spans.begin(), spans.end(), [](const Kept& a, const Kept& b) {
        return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.depth < b.depth;
    });
    std::unordered_map<std::uint32_t, std::size_t> lane_of;
    std::unordered_map<const char*, std::uint32_t> name_of;
    for (const Kept& k : spans) {
        auto [lane, new_lane] = lane_of.emplace(k.tid, tl.lanes.size());
        if (new_lane) {
            const auto n = thread_names_.find(k.tid);
            tl.lanes.push_back({n != thread_names_.end() ? n->second : "thread " + std::to_string(k.tid), {}});
        }
        auto [name, new_name] = name_of.emplace(k.name, static_cast<std::uint32_t>(tl.names.size()));
        if (new_name) tl.names.emplace_back(k.name);
        tl.lanes[lane->second].spans.push_back({static_cast<std::int64_t>(k.begin_ns - origin),
                                                static_cast<std::int64_t>(k.end_ns - k.begin_ns), name->second,
                                                k.depth});
    }
    for (const auto& [step, range] : steps_) {
        tl.steps.push_back(
            {step, static_cast<std::int64_t>(range.first - origin), static_cast<std::int64_t>(range.second - origin)});
    }
    tl.duration_ns = static_cast<std::int64_t>(last_end_ns_ - origin);
    tl.spans_seen = seen_;
    tl.note = spans.size() == seen_
                  ? "all " + std::to_string(seen_) + " spans the timelines got"
                  : "the " + std::to_string(spans.size()) + " longest of the " + std::to_string(seen_) +
                        " spans the timelines got (shorter ones are in the icicle only)";
    if (min_ns_ != 0 || max_depth_ != 0 || status_.filtered_spans != 0) {
        tl.note += "; " + std::to_string(status_.filtered_spans) + " scopes left out of every timeline by";
        if (min_ns_ != 0) tl.note += " RINGPROF_TIMELINE_MIN_NS=" + std::to_string(min_ns_);
        if (max_depth_ != 0) tl.note += " RINGPROF_TIMELINE_MAX_DEPTH=" + std::to_string(max_depth_);
    }
    if (status_.dropped_spans != 0) {
        tl.note += "; " + std::to_string(status_.dropped_spans) + " spans dropped (the timeline writer fell behind)";
    }
    return tl;
}

void FlameHtmlBackend::on_snapshot(const Snapshot& snapshot) {
    if (path_.empty()) return;  // its name was refused at the start
    FlameProfile profile = flame_profile(snapshot, run_id_);
    profile.timeline = timeline();
    write_file_atomically(path_, render_html(profile));
}

}  // namespace ringprof::backends
