#include "flame/profile_from_trace.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

#include "trace/byte_source.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::flame_detail {

namespace {

// Nesting by time builds one tree level per enclosing span; like every timer tree, it keeps
// kMaxTreeDepth levels (ringprof/timer_tree.hpp) and folds deeper spans into their ancestor there.
constexpr std::size_t kMaxNesting = kMaxTreeDepth;

struct Interval {
    double ts;   // microseconds
    double dur;  // microseconds
    std::uint32_t name;
    std::uint32_t seq;  // arrival order, the tie-break that keeps the sort stable
};

struct Thread {
    std::string pid, tid, thread_name;
    std::vector<Interval> spans;
};

// Takes the events the shared trace reader hands out (complete, B/E already joined) and keeps
// per thread what the flame graph needs.
class Collector final : public merge::EventSink {
public:
    void on_event(const merge::ReadEvent& e) override {
        Thread& t = thread(e);
        if (t.thread_name.empty() && !e.thread_name.empty()) t.thread_name = std::string(e.thread_name);
        if (!e.phase.empty() && e.phase != "Unknown") process_names_.emplace(std::string(e.pid), std::string(e.phase));
        t.spans.push_back({e.start.as_double(), std::max(0.0, e.dur.as_double()), intern(e.name), seq_++});
    }

    FlameProfile finish(const std::string& title) {
        FlameProfile p;
        p.title = title;
        double first = std::numeric_limits<double>::infinity();
        double last = -std::numeric_limits<double>::infinity();
        bool several_pids = false;
        for (const Thread& t : threads_) several_pids = several_pids || t.pid != threads_.front().pid;
        for (Thread& t : threads_) {
            if (t.spans.empty()) continue;
            FlameThread ft;
            ft.label = label(t, several_pids);
            double t_first = 0, t_last = 0;
            build(t.spans, ft.tree, t_first, t_last);
            first = std::min(first, t_first);
            last = std::max(last, t_last);
            p.threads.push_back(std::move(ft));
        }
        std::vector<const TimerNode*> trees;
        for (const FlameThread& t : p.threads) trees.push_back(&t.tree);
        merge_thread_trees(trees, p.merged);
        p.merged.total = p.threads.empty() ? 0.0 : (last - first) * 1e-6;
        p.merged.count = 1;
        return p;
    }

    std::size_t spans() const { return seq_; }

private:
    std::uint32_t intern(std::string_view name) {
        const auto [it, inserted] = name_ids_.emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
        if (inserted) names_.emplace_back(name);
        return it->second;
    }

    Thread& thread(const merge::ReadEvent& e) {
        key_.assign(e.pid);
        key_ += '\x1f';
        key_ += e.thread_key;
        const auto [it, inserted] = thread_ids_.emplace(key_, threads_.size());
        if (inserted) {
            threads_.emplace_back();
            threads_.back().pid = std::string(e.pid);
            threads_.back().tid = std::string(e.thread_key);
        }
        return threads_[it->second];
    }

    std::string label(const Thread& t, bool several_pids) const {
        std::string out;
        const auto pn = process_names_.find(t.pid);
        if (several_pids) out = (pn != process_names_.end() ? pn->second : "pid " + t.pid) + " / ";
        if (!t.thread_name.empty()) return out + t.thread_name + " (tid " + t.tid + ")";
        if (!several_pids && pn != process_names_.end()) out = pn->second + " / ";
        return out + "tid " + t.tid;
    }

    // Nesting by time: a span that starts before the enclosing one ends is its child.
    void build(std::vector<Interval>& spans, TimerNode& root, double& first, double& last) const {
        std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) {
            if (a.ts != b.ts) return a.ts < b.ts;
            if (a.dur != b.dur) return a.dur > b.dur;
            return a.seq < b.seq;
        });
        first = spans.front().ts;
        last = first;
        struct Level {
            TimerNode* node;
            double end;
        };
        std::vector<Level> stack{{&root, std::numeric_limits<double>::infinity()}};
        for (const Interval& s : spans) {
            while (stack.size() > 1 && s.ts >= stack.back().end) stack.pop_back();
            // Folded: its time is already in the ancestor's total (spans nested in it fold too).
            if (stack.size() > kMaxNesting) continue;
            // Only the deepest node's children change, so the pointers below it stay valid.
            TimerNode& n = stack.back().node->child(names_[s.name]);
            n.total += s.dur * 1e-6;
            n.count += 1;
            stack.push_back({&n, s.ts + s.dur});
            last = std::max(last, s.ts + s.dur);
        }
        root.total = (last - first) * 1e-6;
        root.count = 1;
    }

    std::vector<std::string> names_;
    std::unordered_map<std::string, std::uint32_t> name_ids_;
    std::vector<Thread> threads_;
    std::unordered_map<std::string, std::size_t> thread_ids_;
    std::unordered_map<std::string, std::string> process_names_;
    std::string key_;
    std::uint32_t seq_ = 0;
};

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FlameProfile read_trace_profile(const std::string& path) {
    Collector collector;
    merge::ReadOutcome outcome;
    std::unique_ptr<merge::ByteSource> src;
    try {
        src = merge::open_trace_file(path);
    } catch (const merge::InputError& e) {
        throw FlameInputError(path + ": " + e.what());
    }
    try {
        merge::ReaderSetup setup;
        setup.close_open_spans = true;
        // Relative times are what a flame graph needs; the time base is not applied.
        setup.has_base = true;
        setup.base = merge::TraceNumber::integer(0);
        outcome = merge::read_trace_events(*src, setup, collector);
    } catch (const merge::NotATraceError&) {
        throw;
    } catch (const merge::InputError& e) {
        throw FlameInputError(path + ": not a readable trace: " + e.what());
    }
    if (collector.spans() == 0) {
        std::string why = path + ": no complete (X) or begin/end (B/E) events with times";
        for (const std::string& n : outcome.notes) why += "; " + n;
        throw FlameInputError(why);
    }
    return collector.finish(base_name(path));
}

}  // namespace ringprof::flame_detail
