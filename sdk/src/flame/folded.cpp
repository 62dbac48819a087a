// Folded stacks: what flamegraph.pl's stackcollapse scripts produce and inferno and speedscope
// read. The tree is already aggregated, so each node becomes at most one line.
#include <cmath>
#include <cstdint>

#include "json/json_text.hpp"
#include "ringprof/flame.hpp"
#include "tree/kept_depth.hpp"

namespace ringprof {

namespace {

std::int64_t micros(double seconds) {
    return seconds > 0.0 ? static_cast<std::int64_t>(std::llround(seconds * 1e6)) : 0;
}

void append_frame(std::string& out, const std::string& name) {
    if (name.empty()) {
        out += "(unnamed)";
        return;
    }
    for (char c : detail::valid_utf8(name)) {
        if (c == ';')
            out += ':';
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
}

void fold(const TimerNode& node, std::string& stack, std::string& out) {
    const std::size_t mark = stack.size();
    if (!stack.empty()) stack += ';';
    append_frame(stack, node.name);
    std::int64_t self = micros(node.total);
    for (const TimerNode& c : node.children) self -= micros(c.total);
    if (self > 0) {
        out += stack;
        out += ' ';
        out += std::to_string(self);
        out += '\n';
    }
    for (const TimerNode& c : node.children) fold(c, stack, out);
    stack.resize(mark);
}

}  // namespace

std::string render_folded(const TimerNode& root) {
    if (detail::deeper_than_kept(root)) return render_folded(detail::copy_within_kept_depth(root));
    std::string out, stack;
    fold(root, stack, out);
    return out;
}

}  // namespace ringprof
