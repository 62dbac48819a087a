// Where a report's trees come from: a live snapshot, a saved timers JSON, or a trace.
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "flame/trace_reader.hpp"
#include "flame/trace_scanner.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof {

namespace {

std::string thread_label(const ThreadInfo& t) {
    std::string label = t.name.empty() ? "thread" : t.name;
    label += " (tid " + std::to_string(t.tid) + ")";
    if (t.exited) label += ", exited";
    return label;
}

// Whole file, decompressed when it is gzip (timers files are small; traces never come here).
std::string read_all(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw FlameInputError(path + ": cannot open the file: " + std::strerror(errno));
    std::string text;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    int code = 0;
    const std::string msg = n < 0 ? gzerror(f, &code) : "";
    gzclose(f);
    if (n < 0) throw FlameInputError(path + ": cannot read the file: " + msg);
    return text;
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
        ft.label = thread_label(t);
        ft.tree = t.tree;
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
    using flame_detail::TraceScanner;
    TraceScanner::Shape shape;
    try {
        TraceScanner probe(path);
        shape = probe.open();
    } catch (const flame_detail::TraceSyntaxError& e) {
        throw FlameInputError(path + ": " + e.what());
    }
    switch (shape) {
        case TraceScanner::Shape::empty:
            throw FlameInputError(path + ": the file is empty");
        case TraceScanner::Shape::other:
            throw FlameInputError(path + ": not a timers JSON or trace file (it does not start with '{' or '[')");
        case TraceScanner::Shape::event_array:
            return flame_detail::read_trace_profile(path);
        case TraceScanner::Shape::other_object:
            break;
    }
    try {
        const TimerTree tree = parse_timers_json(read_all(path), path);
        return flame_profile(tree, base_name(path));
    } catch (const TimersJsonError& e) {
        throw FlameInputError(e.what());
    }
}

}  // namespace ringprof
