// Where a report's trees come from: a live snapshot, a saved timers JSON, or a trace.

#include "flame/profile_from_trace.hpp"
#include "trace/byte_source.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/timers_json.hpp"
#include "trace/file_text.hpp"

namespace ringprof {

namespace {

// A thread that adopted a context holds its scopes under the adopting scope's path, whose nodes
// got no time from it: the thread's time is in the first timed node down each branch.
double outermost_time(const TimerNode& node) {
    if (node.total > 0.0) return node.total;
    double sum = 0.0;
    for (const TimerNode& c : node.children) sum += outermost_time(c);
    return sum;
}

std::string thread_detail(const ThreadInfo& t) {
    if (t.tid == 0) return "exited";  // the drainer's sum of exited threads beyond its first 64
    return "tid " + std::to_string(t.tid) + (t.exited ? ", exited" : "");
}

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

FlameProfile flame_profile(const Snapshot& snapshot, std::string_view title) {
    FlameProfile p = flame_profile(snapshot.tree, title);
    p.dropped = snapshot.dropped;
    for (const ThreadInfo& t : snapshot.threads) {
        if (t.tree.children.empty()) continue;
        FlameThread ft;
        // The ring's name is what the timelines show: "main", "thread <tid>" or the set name.
        ft.label = t.name.empty() ? "thread " + std::to_string(t.tid) : t.name;
        ft.detail = thread_detail(t);
        ft.tree = t.tree;
        // The aggregator leaves a thread's root at 0: its time is that of its outermost scopes.
        ft.tree.total = 0.0;
        for (const TimerNode& c : ft.tree.children) ft.tree.total += outermost_time(c);
        ft.tree.count = 1;
        ft.dropped = t.dropped;
        p.threads.push_back(std::move(ft));
    }
    return p;
}

FlameProfile flame_profile(const TimerTree& tree, std::string_view title) {
    FlameProfile p;
    p.title = std::string(title);
    p.merged = tree.root;
    return p;
}

FlameProfile load_flame_profile(const std::string& path) {
    std::string why;
    try {
        return detail::read_trace_profile(path);
    } catch (const detail::NotATraceError& e) {
        why = e.what();
    }
    // Not an event list: a timers file is the other input a flame graph is drawn from.
    std::string text;
    if (const std::string problem = detail::read_file_text(path, text); !problem.empty()) {
        throw FlameInputError(path + ": " + problem);
    }
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b) {
        try {  // a gzip-compressed timers file
            auto src = detail::gzip_source(detail::memory_source(text));
            std::string plain;
            char buf[1 << 16];
            while (const std::size_t n = src->read(buf, sizeof buf)) plain.append(buf, n);
            text = std::move(plain);
        } catch (const detail::InputError& e) {
            throw FlameInputError(path + ": " + e.what());
        }
    }
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw FlameInputError(path + ": the file is empty");
    if (text[first] != '{') throw FlameInputError(path + ": not a timers JSON or trace file: " + why);
    try {
        const TimerTree tree = parse_timers_json(text, path);
        return flame_profile(tree, base_name(path));
    } catch (const TimersJsonError& e) {
        throw FlameInputError(e.what());
    }
}

}  // namespace ringprof
