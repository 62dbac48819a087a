#include "flame/profile_from_trace.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "merge/system_metric_rows.hpp"
#include "merge/trace_files.hpp"
#include "merge/trace_selection.hpp"
#include "ringprof/step_statistics.hpp"
#include "ringprof/system_rules.hpp"
#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"
#include "tree/children_by_name.hpp"

namespace ringprof::detail {

namespace {

// Nesting by time builds one tree level per enclosing span; like every timer tree, it keeps
// kMaxTreeDepth levels (ringprof/timer_tree.hpp) and folds deeper spans into their ancestor there.
constexpr std::size_t kMaxNesting = kMaxTreeDepth;

struct Interval {
    double ts;   // microseconds
    double dur;  // microseconds
    // The end, rounded once from the file's exact numbers: what nests. ts + dur, rounded twice,
    // can pass the next span's start on an epoch base (reader's ReadEvent::end).
    double end;
    std::uint32_t name;
    std::uint32_t seq;  // arrival order, the tie-break that keeps the sort stable
    std::int64_t step;  // when has_step: every int64 is a step number
    bool has_step;
};

// A node of a tree being built span by span: a TimerNode plus the index of its children, which a
// node with many distinct children needs for every span that enters one of them.
struct BuildNode {
    std::string name;
    double total = 0.0;
    std::uint64_t count = 0;
    std::vector<BuildNode> children;
    ChildIndex index;

    TimerNode to_timer_node() && {
        TimerNode n(std::move(name));
        n.total = total;
        n.count = count;
        n.children.reserve(children.size());
        for (BuildNode& c : children) n.children.push_back(std::move(c).to_timer_node());
        children.clear();
        return n;
    }
};

struct Thread {
    std::string node, pid, tid, thread_name;
    std::string key;  // node, pid and tid: what tells this thread from every other
    std::vector<Interval> spans;
};

// Takes the events the shared trace reader hands out (complete, B/E already joined) and keeps
// per thread what the flame graph needs.
class Collector final : public detail::EventSink {
public:
    void on_event(const detail::ReadEvent& e) override {
        Thread& t = thread(e);
        if (t.thread_name.empty() && !e.thread_name.empty()) t.thread_name = std::string(e.thread_name);
        if (!e.phase.empty() && e.phase != "Unknown")
            process_names_.emplace(t.node + '\x1f' + t.pid, std::string(e.phase));
        const double start = e.start.as_double();
        t.spans.push_back({start, std::max(0.0, e.dur.as_double()), std::max(start, e.end.as_double()), intern(e.name),
                           seq_++, e.step, e.in_step()});
    }

    FlameProfile finish(const std::string& title) {
        FlameProfile p;
        p.title = title;
        double first = std::numeric_limits<double>::infinity();
        double last = -std::numeric_limits<double>::infinity();
        bool several_pids = false, several_nodes = false;
        for (const Thread& t : threads_) {
            several_pids = several_pids || t.pid != threads_.front().pid;
            several_nodes = several_nodes || t.node != threads_.front().node;
        }
        // The timeline's origin, subtracted before rounding: absolute microseconds as nanoseconds
        // would pass what a double holds exactly.
        double origin = std::numeric_limits<double>::infinity();
        for (const Thread& t : threads_) {
            for (const Interval& s : t.spans) origin = std::min(origin, s.ts);
        }
        for (Thread& t : threads_) {
            if (t.spans.empty()) continue;
            FlameThread ft;
            ft.label = (several_nodes ? t.node + " / " : std::string()) + label(t, several_pids || several_nodes);
            double t_first = 0, t_last = 0;
            FlameLane lane;
            lane.label = ft.label;
            build(t.spans, ft.tree, t_first, t_last, origin, lane);
            first = std::min(first, t_first);
            last = std::max(last, t_last);
            p.threads.push_back(std::move(ft));
            p.timeline.lanes.push_back(std::move(lane));
        }
        finish_timeline(p.timeline, first, last);
        std::vector<const TimerNode*> trees;
        for (const FlameThread& t : p.threads) trees.push_back(&t.tree);
        sum_thread_trees(trees, p.merged);
        p.merged.total = p.threads.empty() ? 0.0 : (last - first) * 1e-6;
        p.merged.count = 1;
        return p;
    }

    std::size_t spans() const { return seq_; }

    // Events of the files that follow come from this node (host and process, as merge names it):
    // equal pids of two nodes are two processes.
    void set_node(std::string node) { node_ = std::move(node); }

    // What a file's reading can take back: the threads and spans there were before it.
    struct Mark {
        std::size_t threads;
        std::vector<std::size_t> spans;
        std::uint32_t seq;
    };
    Mark mark() const {
        Mark m{threads_.size(), {}, seq_};
        for (const Thread& t : threads_) m.spans.push_back(t.spans.size());
        return m;
    }
    void rollback(const Mark& m) {
        for (std::size_t i = m.threads; i < threads_.size(); ++i) thread_ids_.erase(threads_[i].key);
        threads_.resize(m.threads);
        for (std::size_t i = 0; i < m.threads; ++i) threads_[i].spans.resize(m.spans[i]);
        seq_ = m.seq;
    }

private:
    std::uint32_t intern(std::string_view name) {
        const auto [it, inserted] = name_ids_.emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
        if (inserted) names_.emplace_back(name);
        return it->second;
    }

    Thread& thread(const detail::ReadEvent& e) {
        key_.assign(node_);
        key_ += '\x1f';
        key_ += e.pid;
        key_ += '\x1f';
        key_ += e.thread_key;
        const auto [it, inserted] = thread_ids_.emplace(key_, threads_.size());
        if (inserted) {
            threads_.emplace_back();
            threads_.back().node = node_;
            threads_.back().key = key_;
            threads_.back().pid = std::string(e.pid);
            threads_.back().tid = std::string(e.thread_key);
        }
        return threads_[it->second];
    }

    std::string label(const Thread& t, bool several_pids) const {
        std::string out;
        const auto pn = process_names_.find(t.node + '\x1f' + t.pid);
        if (several_pids) out = (pn != process_names_.end() ? pn->second : "pid " + t.pid) + " / ";
        if (!t.thread_name.empty()) return out + t.thread_name + " (tid " + t.tid + ")";
        if (!several_pids && pn != process_names_.end()) out = pn->second + " / ";
        return out + "tid " + t.tid;
    }

    // Nesting by time: a span that starts before the enclosing one ends is its child.
    void build(std::vector<Interval>& spans, TimerNode& root, double& first, double& last, double origin,
               FlameLane& lane) const {
        std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) {
            if (a.ts != b.ts) return a.ts < b.ts;
            if (a.end != b.end) return a.end > b.end;
            return a.seq < b.seq;
        });
        first = spans.front().ts;
        last = first;
        struct Level {
            BuildNode* node;
            double end;
        };
        BuildNode top;
        std::vector<Level> stack{{&top, std::numeric_limits<double>::infinity()}};
        for (const Interval& s : spans) {
            while (stack.size() > 1 && s.ts >= stack.back().end) stack.pop_back();
            // Folded: its time is already in the ancestor's total (spans nested in it fold too).
            if (stack.size() > kMaxNesting) continue;
            // Only the deepest node's children change, so the pointers below it stay valid.
            // Both ends from the same origin, so a lane's spans nest as the tree does.
            const std::int64_t begin_ns = std::llround((s.ts - origin) * 1e3);
            lane.spans.push_back({begin_ns, std::llround((s.end - origin) * 1e3) - begin_ns, s.name,
                                  static_cast<std::uint32_t>(stack.size() - 1)});
            if (s.has_step) {
                auto [it, fresh] = steps_.emplace(s.step, std::make_pair(s.ts, s.end));
                if (!fresh) {
                    it->second.first = std::min(it->second.first, s.ts);
                    it->second.second = std::max(it->second.second, s.end);
                }
            }
            BuildNode& parent = *stack.back().node;
            BuildNode& n = find_or_add_child(parent.children, parent.index, names_[s.name]);
            n.total += s.dur * 1e-6;
            n.count += 1;
            stack.push_back({&n, s.end});
            last = std::max(last, s.end);
        }
        top.name = root.name;
        root = std::move(top).to_timer_node();
        root.total = (last - first) * 1e-6;
        root.count = 1;
    }

    // The longest kFlameTimelineMaxSpans spans stay, times made relative to the first span.
    void finish_timeline(FlameTimeline& tl, double first_us, double last_us) const {
        tl.names = names_;
        tl.origin_us = first_us;
        tl.spans_seen = seq_;
        tl.duration_ns = static_cast<std::int64_t>(std::llround((last_us - first_us) * 1e3));
        std::int64_t shortest_kept = 0;
        std::size_t ties_left = kFlameTimelineMaxSpans;
        if (seq_ > kFlameTimelineMaxSpans) {
            std::vector<std::int64_t> durs;
            durs.reserve(seq_);
            for (const FlameLane& l : tl.lanes) {
                for (const FlameSpan& sp : l.spans) durs.push_back(sp.dur_ns);
            }
            std::nth_element(durs.begin(), durs.begin() + (kFlameTimelineMaxSpans - 1), durs.end(),
                             std::greater<std::int64_t>());
            shortest_kept = durs[kFlameTimelineMaxSpans - 1];
            ties_left = static_cast<std::size_t>(std::count_if(durs.begin(), durs.begin() + kFlameTimelineMaxSpans,
                                                               [&](std::int64_t d) { return d == shortest_kept; }));
        }
        for (FlameLane& l : tl.lanes) {
            std::size_t out = 0;
            for (FlameSpan sp : l.spans) {
                if (sp.dur_ns < shortest_kept) continue;
                if (sp.dur_ns == shortest_kept && seq_ > kFlameTimelineMaxSpans) {
                    if (ties_left == 0) continue;
                    --ties_left;
                }
                l.spans[out++] = sp;
            }
            l.spans.resize(out);
        }
        for (const auto& [step, range] : steps_) {
            tl.steps.push_back({step, static_cast<std::int64_t>(std::llround((range.first - first_us) * 1e3)),
                                static_cast<std::int64_t>(std::llround((range.second - first_us) * 1e3))});
        }
        std::size_t kept = 0;
        for (const FlameLane& l : tl.lanes) kept += l.spans.size();
        tl.note = kept == seq_ ? "all " + std::to_string(seq_) + " spans of the trace"
                               : "the " + std::to_string(kept) + " longest of the trace's " + std::to_string(seq_) +
                                     " spans (shorter ones are in the icicle only)";
    }

    std::vector<std::string> names_;
    std::unordered_map<std::string, std::uint32_t> name_ids_;
    std::vector<Thread> threads_;
    std::unordered_map<std::string, std::size_t> thread_ids_;
    std::unordered_map<std::string, std::string> process_names_;
    mutable std::map<std::int64_t, std::pair<double, double>> steps_;  // step -> first begin, last end (us)
    std::string key_, node_;
    std::uint32_t seq_ = 0;
};

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FlameProfile read_trace_profile(const std::string& path) {
    Collector collector;
    detail::ReadOutcome outcome;
    std::unique_ptr<detail::ByteSource> src;
    try {
        src = detail::open_trace_file(path);
    } catch (const detail::InputError& e) {
        throw FlameInputError(path + ": " + e.what());
    }
    try {
        detail::ReaderSetup setup;
        setup.close_open_spans = true;
        // Relative times are what a flame graph needs; the time base is not applied.
        setup.has_base = true;
        setup.base = detail::TraceNumber::integer(0);
        outcome = detail::read_trace_events(*src, setup, collector);
    } catch (const detail::NotATraceError&) {
        throw;
    } catch (const detail::InputError& e) {
        throw FlameInputError(path + ": not a readable trace: " + e.what());
    }
    if (collector.spans() == 0) {
        std::string why = path + ": no complete (X) or begin/end (B/E) events with times";
        for (const std::string& n : outcome.notes) why += "; " + n;
        throw FlameInputError(why);
    }
    FlameProfile p = collector.finish(base_name(path));
    p.events_dropped = outcome.dropped;
    for (const std::string& n : outcome.notes) p.notes.push_back(path + ": " + n);
    return p;
}

// The folder's system metrics (system/, as merge reads them) as utilization lanes: each core's
// CPUUtilization and each GPU's GPUUtilization, by node, on the timeline's clock.
void add_utilization_lanes(const std::string& root, FlameProfile& p) {
    if (p.timeline.lanes.empty() || find_system_files(root, std::nullopt).empty()) return;
    std::vector<std::string> notes;
    const std::vector<SystemRow> rows = read_system_metrics(root, std::nullopt, notes);
    for (std::string& n : notes) p.notes.push_back(std::move(n));
    std::map<std::tuple<std::string, int, std::string>, FlameUtilization> lanes;  // node, cpu/gpu, name
    for (const SystemRow& r : rows) {
        const bool cpu = r.dimension == "CPUUtilization", gpu = r.dimension == "GPUUtilization";
        if (!cpu && !gpu) continue;
        FlameUtilization& lane = lanes[{r.node, gpu ? 1 : 0, r.name}];
        if (lane.label.empty()) lane.label = r.node + " " + r.name;
        lane.t_ns.push_back(std::llround((r.timestamp * 1e6 - p.timeline.origin_us) * 1e3));
        lane.value.push_back(r.value);
    }
    for (auto& [key, lane] : lanes) p.timeline.utilization.push_back(std::move(lane));
}

// The profiler rules' findings over the folder (as `ringprof rules` gives them), on the timeline.
void add_rule_findings(const std::string& root, FlameProfile& p) {
    if (p.timeline.lanes.empty() || find_system_files(root, std::nullopt).empty()) return;
    RulesReport report;
    try {
        report = evaluate_rules(root);
    } catch (const std::exception& e) {
        // The page is still drawn; it says why it has no findings.
        p.notes.push_back(root + ": the profiler rules could not be evaluated: " + e.what());
        return;
    }
    const auto rel = [&](double s) { return std::llround((s * 1e6 - p.timeline.origin_us) * 1e3); };
    for (const RuleResult& r : report.rules) {
        for (const RuleFinding& f : r.findings) {
            FlameFinding ff{r.rule, f.node, f.device, "", f.what, rel(f.start_s), rel(f.end_s)};
            if (f.first_step) ff.steps = std::to_string(*f.first_step) + ".." + std::to_string(*f.last_step);
            p.timeline.findings.push_back(std::move(ff));
        }
    }
}

FlameProfile read_folder_profile(const std::string& root) {
    Discovery found;
    try {
        found = discover_trace_files(root, {});
    } catch (const std::runtime_error& e) {
        throw FlameInputError(e.what());
    }
    std::vector<std::string> skipped;
    for (const FileProblem& p : found.problems) skipped.push_back(p.path + ": " + p.reason);
    std::uint64_t dropped = 0;
    std::vector<std::string> notes;
    Collector collector;
    for (const TraceFile& f : found.files) {
        collector.set_node(f.node_id);
        const Collector::Mark before = collector.mark();
        ReadOutcome outcome;
        // A file read again (its time base came after its events) starts over, as one that is
        // left out does: the flame graph holds each span once.
        if (auto why = read_trace_file(
                f, collector, [&] { collector.rollback(before); }, outcome)) {
            collector.rollback(before);
            skipped.push_back(f.path + ": " + *why);
        } else {
            dropped += outcome.dropped;
            for (const std::string& n : outcome.notes) notes.push_back(f.path + ": " + n);
        }
    }
    if (collector.spans() == 0) {
        std::string why = root + ": no complete (X) or begin/end (B/E) events with times in its timelines";
        for (const std::string& s : skipped) why += "; " + s;
        throw FlameInputError(why);
    }
    // The folder's own name, also for "." or "jobs/run1/".
    std::filesystem::path folder = std::filesystem::absolute(root).lexically_normal();
    if (folder.filename().empty()) folder = folder.parent_path();
    FlameProfile p = collector.finish(folder.filename().string());
    p.skipped_inputs = std::move(skipped);
    p.events_dropped = dropped;
    p.notes = std::move(notes);
    add_utilization_lanes(root, p);
    add_rule_findings(root, p);
    // The steps view: per step, each node's time, as `ringprof steps --by node` counts it.
    try {
        p.node_steps = analyze_steps(root).steps;
    } catch (const MergeError& e) {
        throw FlameInputError(root + ": " + e.what());
    }
    return p;
}

}  // namespace ringprof::detail
