#include "flame/trace_reader.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "flame/trace_scanner.hpp"

namespace ringprof::flame_detail {

namespace {

namespace od = simdjson::ondemand;

struct Interval {
    double ts;   // microseconds
    double dur;  // microseconds
    std::uint32_t name;
    std::uint32_t seq;  // arrival order, the tie-break that keeps the sort stable
};

struct Open {
    double ts;
    std::uint32_t name;
};

struct Thread {
    std::string pid, tid;
    std::vector<Interval> spans;
    std::vector<Open> open;  // B events waiting for their E
    double last_ts = -std::numeric_limits<double>::infinity();
};

class Collector {
public:
    void add(std::string_view text, std::uint64_t index) {
        padded_.assign(text.data(), text.size());
        padded_.append(simdjson::SIMDJSON_PADDING, ' ');
        od::document doc = parser_.iterate(padded_.data(), text.size(), padded_.size());
        od::object obj = doc.get_object();
        std::string_view ph, name;
        std::string pid = "0", tid = "0";
        double ts = 0, dur = 0;
        bool has_ts = false, has_dur = false;
        std::string meta_name;
        for (auto field : obj) {
            const std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "ph") ph = v.get_string();
            else if (key == "name") name = v.get_string();
            else if (key == "pid") pid = id_text(v);
            else if (key == "tid") tid = id_text(v);
            else if (key == "ts") { ts = number(v); has_ts = true; }
            else if (key == "dur") { dur = number(v); has_dur = true; }
            else if (key == "args") meta_name = args_name(v);
        }
        // The On-Demand views above point into the parser; keep copies before the next element.
        const std::string ph_s(ph), name_s(name);
        if (ph_s == "M") {
            if (name_s == "process_name" && !meta_name.empty()) process_names_[pid] = meta_name;
            if (name_s == "thread_name" && !meta_name.empty()) thread_names_[pid + '\x1f' + tid] = meta_name;
            return;
        }
        if (!has_ts || !std::isfinite(ts)) return;
        if (ph_s == "X") {
            if (!has_dur || !(dur >= 0) || !std::isfinite(dur)) return;
            Thread& t = thread(pid, tid);
            t.spans.push_back({ts, dur, intern(name_s), static_cast<std::uint32_t>(index)});
            t.last_ts = std::max(t.last_ts, ts + dur);
        } else if (ph_s == "B") {
            Thread& t = thread(pid, tid);
            t.open.push_back({ts, intern(name_s)});
            t.last_ts = std::max(t.last_ts, ts);
        } else if (ph_s == "E") {
            Thread& t = thread(pid, tid);
            t.last_ts = std::max(t.last_ts, ts);
            if (t.open.empty()) return;  // an E without its B (the trace began mid-scope)
            const Open b = t.open.back();
            t.open.pop_back();
            t.spans.push_back({b.ts, std::max(0.0, ts - b.ts), b.name, static_cast<std::uint32_t>(index)});
        }
    }

    FlameProfile finish(const std::string& title) {
        FlameProfile p;
        p.title = title;
        double first = std::numeric_limits<double>::infinity();
        double last = -std::numeric_limits<double>::infinity();
        bool several_pids = false;
        for (const Thread& t : threads_) several_pids = several_pids || t.pid != threads_.front().pid;
        for (Thread& t : threads_) {
            // Scopes still open at the end ran at least until the thread's last event.
            for (const Open& b : t.open) {
                t.spans.push_back({b.ts, std::max(0.0, t.last_ts - b.ts), b.name, next_seq_++});
            }
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

    std::size_t spans() const {
        std::size_t n = 0;
        for (const Thread& t : threads_) n += t.spans.size() + t.open.size();
        return n;
    }

private:
    static double number(od::value v) {
        if (v.type() == od::json_type::string) {
            throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
        }
        return v.get_double();
    }

    // pids and tids are numbers in most traces and strings in some.
    static std::string id_text(od::value v) {
        if (v.type() == od::json_type::string) return std::string(std::string_view(v.get_string()));
        std::string_view raw = v.raw_json_token();  // may carry the white space after it
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
            raw.remove_suffix(1);
        }
        return std::string(raw);
    }

    static std::string args_name(od::value v) {
        if (v.type() != od::json_type::object) return {};
        for (auto field : v.get_object()) {
            if (std::string_view(field.unescaped_key()) == "name") {
                od::value n = field.value();
                if (n.type() == od::json_type::string) return std::string(std::string_view(n.get_string()));
            }
        }
        return {};
    }

    std::uint32_t intern(const std::string& name) {
        const auto [it, inserted] = name_ids_.emplace(name, static_cast<std::uint32_t>(names_.size()));
        if (inserted) names_.push_back(name);
        return it->second;
    }

    Thread& thread(const std::string& pid, const std::string& tid) {
        const std::string key = pid + '\x1f' + tid;
        const auto [it, inserted] = thread_ids_.emplace(key, threads_.size());
        if (inserted) {
            threads_.emplace_back();
            threads_.back().pid = pid;
            threads_.back().tid = tid;
        }
        return threads_[it->second];
    }

    std::string label(const Thread& t, bool several_pids) const {
        std::string out;
        const auto pn = process_names_.find(t.pid);
        if (several_pids) out = (pn != process_names_.end() ? pn->second : "pid " + t.pid) + " / ";
        const auto tn = thread_names_.find(t.pid + '\x1f' + t.tid);
        if (tn != thread_names_.end()) return out + tn->second + " (tid " + t.tid + ")";
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

    od::parser parser_;
    std::string padded_;
    std::vector<std::string> names_;
    std::unordered_map<std::string, std::uint32_t> name_ids_;
    std::vector<Thread> threads_;
    std::unordered_map<std::string, std::size_t> thread_ids_;
    std::unordered_map<std::string, std::string> process_names_, thread_names_;
    std::uint32_t next_seq_ = std::numeric_limits<std::uint32_t>::max() / 2;
};

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FlameProfile read_trace_profile(const std::string& path) {
    try {
        TraceScanner scanner(path);
        if (scanner.open() != TraceScanner::Shape::event_array) {
            throw FlameInputError(path + ": not a trace: no event array found");
        }
        Collector collector;
        std::string_view element;
        std::uint64_t index = 0;
        while (scanner.next(element)) {
            const std::uint64_t at = scanner.offset() - element.size();
            try {
                collector.add(element, index);
            } catch (const simdjson::simdjson_error& e) {
                throw FlameInputError(path + ": event " + std::to_string(index) + " (byte " + std::to_string(at) +
                                      ") is not a valid trace event: " + e.what());
            }
            ++index;
        }
        if (collector.spans() == 0) {
            throw FlameInputError(path + ": no complete (X) or begin/end (B/E) events with times among " +
                                  std::to_string(index) + " events");
        }
        return collector.finish(base_name(path));
    } catch (const TraceSyntaxError& e) {
        throw FlameInputError(path + ": not a readable trace: " + e.what());
    }
}

}  // namespace ringprof::flame_detail
