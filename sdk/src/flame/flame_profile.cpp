// Where a report's trees come from: a live snapshot, a saved timers JSON, or a trace.

#include "flame/profile_from_trace.hpp"
#include "trace/byte_source.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/timers_json.hpp"
#include "trace/file_text.hpp"

namespace ringprof {

namespace {

std::string thread_label(const ThreadInfo& t) {
    std::string label = t.name.empty() ? "thread" : t.name;
    label += " (tid " + std::to_string(t.tid) + ")";
    if (t.exited) label += ", exited";
    return label;
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
    std::string why;
    try {
        return flame_detail::read_trace_profile(path);
    } catch (const merge::NotATraceError& e) {
        why = e.what();
    }
    // Not an event list: a timers file is the other input a flame graph is drawn from.
    std::string text;
    if (const std::string problem = trace::read_file_text(path, text); !problem.empty()) {
        throw FlameInputError(path + ": " + problem);
    }
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b) {
        try {  // a gzip-compressed timers file
            auto src = merge::gzip_source(merge::memory_source(text));
            std::string plain;
            char buf[1 << 16];
            while (const std::size_t n = src->read(buf, sizeof buf)) plain.append(buf, n);
            text = std::move(plain);
        } catch (const merge::InputError& e) {
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
