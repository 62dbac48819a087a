// Where a report's trees come from: a live snapshot, a saved timers JSON, or a trace.

#include <filesystem>
#include <system_error>

#include "flame/profile_from_trace.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/timers_json.hpp"
#include "trace/byte_source.hpp"
#include "tree/kept_depth.hpp"

namespace ringprof {

namespace {

// A timers file is parsed whole; real ones are a few megabytes (a million distinct scopes about
// 100 MiB).
constexpr std::size_t kMaxTimersFileBytes = std::size_t{512} << 20;

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
    p.merged = detail::copy_within_kept_depth(tree.root);  // a hand-built tree may be deeper
    return p;
}

FlameProfile load_flame_profile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return detail::read_folder_profile(path);
    std::string why;
    try {
        return detail::read_trace_profile(path);
    } catch (const detail::NotATraceError& e) {
        why = e.what();
    }
    // Not an event list: a timers file is the other input a flame graph is drawn from. Read as it
    // streams (inflated when gzip), its first byte looked at before the rest is held.
    std::string text;
    try {
        auto src = detail::open_trace_file(path);
        char buf[1 << 16];
        bool started = false;  // a byte other than white space seen
        while (const std::size_t n = src->read(buf, sizeof buf)) {
            if (!started) {
                const std::string_view chunk(buf, n);
                const std::size_t first = chunk.find_first_not_of(" \t\r\n");
                if (first != std::string_view::npos && chunk[first] != '{') {
                    throw FlameInputError(path + ": not a timers JSON or trace file: " + why);
                }
                started = first != std::string_view::npos;
            }
            text.append(buf, n);
            if (text.size() > kMaxTimersFileBytes) {
                throw FlameInputError(path + ": a timers file larger than " +
                                      std::to_string(kMaxTimersFileBytes >> 20) +
                                      " MiB, the most a flame graph reads whole");
            }
        }
    } catch (const detail::InputError& e) {
        throw FlameInputError(path + ": " + e.what());
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
