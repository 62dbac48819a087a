#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "json/json_text.hpp"
#include "ringprof/timers_json.hpp"
#include "tree/kept_depth.hpp"

namespace ringprof {

namespace {

using detail::append_json_string;
using detail::append_python_float;

// Indentation as Python's json.dump(indent=4) writes it, down to this depth (16 tree levels);
// deeper, the text goes on one line. Indentation that grows with depth made a 10,000-level
// recursion write 3.2 GB (quadratic); capped, that file is a few MB.
constexpr int kMaxIndentDepth = 32;

void append_count(std::string& out, std::uint64_t n) { fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), n); }

void line_break(std::string& out, int depth) {
    if (depth > kMaxIndentDepth) return;
    out += '\n';
    out.append(static_cast<std::size_t>(depth) * 4, ' ');
}

// Writes `"key": ` at the given depth, with the comma for every key but the first.
class ObjectWriter {
public:
    ObjectWriter(std::string& out, int depth) : out_(out), depth_(depth) { out_ += "{"; }
    std::string& key(std::string_view k) {
        if (!first_) out_ += ',';
        first_ = false;
        line_break(out_, depth_ + 1);
        append_json_string(out_, k);
        out_ += ": ";
        return out_;
    }
    void close() {
        if (!first_) line_break(out_, depth_);
        out_ += '}';
    }
    int depth() const { return depth_; }

private:
    std::string& out_;
    int depth_;
    bool first_ = true;
};

void write_gauge_fields(ObjectWriter& w, const Gauge& g, bool list_form) {
    append_python_float(w.key("value"), g.value);
    // ML-Agents' list-era files put max before min; the dict form has min first.
    if (list_form) {
        append_python_float(w.key("max"), g.max);
        append_python_float(w.key("min"), g.min);
    } else {
        append_python_float(w.key("min"), g.min);
        append_python_float(w.key("max"), g.max);
    }
    append_count(w.key("count"), g.count);
    if (g.non_finite != 0) append_count(w.key("non_finite"), g.non_finite);
}

void write_gauges(std::string& out, const TimerTree& tree, int depth, TimersFormat format) {
    if (format == TimersFormat::Dict) {
        ObjectWriter gw(out, depth);
        for (const auto& [name, g] : tree.gauges) {
            ObjectWriter one(gw.key(name), depth + 1);
            write_gauge_fields(one, g, false);
            one.close();
        }
        gw.close();
        return;
    }
    out += "[";
    bool first = true;
    for (const auto& [name, g] : tree.gauges) {
        if (!first) out += ',';
        first = false;
        line_break(out, depth + 1);
        ObjectWriter one(out, depth + 1);
        append_json_string(one.key("name"), name);
        write_gauge_fields(one, g, true);
        one.close();
    }
    line_break(out, depth);
    out += ']';
}

void write_metadata(std::string& out, const TimerTree& tree, int depth) {
    ObjectWriter mw(out, depth);
    for (const auto& [k, v] : tree.metadata) append_json_string(mw.key(k), v);
    mw.close();
}

void write_node(std::string& out, const TimerNode& node, int depth, TimersFormat format, const TimerTree* root_extras) {
    ObjectWriter w(out, depth);
    const bool dict = format == TimersFormat::Dict;
    if (!dict || root_extras != nullptr) append_json_string(w.key("name"), node.name);
    if (dict && root_extras != nullptr) {
        if (!root_extras->gauges.empty()) write_gauges(w.key("gauges"), *root_extras, depth + 1, format);
        if (!root_extras->metadata.empty()) write_metadata(w.key("metadata"), *root_extras, depth + 1);
    }
    append_python_float(w.key("total"), node.total);
    append_count(w.key("count"), node.count);
    if (node.is_parallel) w.key("is_parallel") += "true";
    append_python_float(w.key("self"), node.self());
    if (!node.children.empty()) {
        std::string& o = w.key("children");
        if (dict) {
            ObjectWriter cw(o, depth + 1);
            for (const TimerNode& c : node.children) write_node(cw.key(c.name), c, depth + 2, format, nullptr);
            cw.close();
        } else {
            o += "[";
            bool first = true;
            for (const TimerNode& c : node.children) {
                if (!first) o += ',';
                first = false;
                line_break(o, depth + 2);
                write_node(o, c, depth + 2, format, nullptr);
            }
            line_break(o, depth + 1);
            o += ']';
        }
    }
    if (!dict && root_extras != nullptr) {
        if (!root_extras->gauges.empty()) write_gauges(w.key("gauges"), *root_extras, depth + 1, format);
        if (!root_extras->metadata.empty()) write_metadata(w.key("metadata"), *root_extras, depth + 1);
    }
    w.close();
}

}  // namespace

std::string write_timers_json(const TimerTree& tree, TimersFormat format) {
    if (detail::deeper_than_kept(tree.root)) {
        return write_timers_json(TimerTree{detail::copy_within_kept_depth(tree.root), tree.gauges, tree.metadata},
                                 format);
    }
    if (const std::optional<std::string> why = unwritable_timers_number(tree)) {
        throw TimersJsonError("timers tree not written: " + *why);
    }
    std::string out;
    write_node(out, tree.root, 0, format, &tree);
    out += '\n';
    return out;
}

}  // namespace ringprof
