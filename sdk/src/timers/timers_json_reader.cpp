// Reads either ML-Agents form with simdjson's On-Demand API. Every value is checked for the kind
// the format needs (a node is an object with a numeric "total" and a whole "count" >= 0, ...), so
// a trace, a stats file or `{}` is refused rather than read as an empty tree, and each error names
// the file, the byte where the problem is and what was expected there.
#include <simdjson.h>

#include <cmath>
#include <limits>

#include "json/value_checks.hpp"
#include "process/file_text.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof {

namespace {

namespace od = simdjson::ondemand;

// Nesting is read by recursion, so it is bounded, at the depth every ringprof writer keeps to
// (kMaxTreeDepth, ringprof/timer_tree.hpp): a file nested 100,000 levels deep overflowed the
// stack. Under ASan a level (read_node + read_children) takes about 8 KiB of stack; 256 levels
// stay near 2 MiB, and are far beyond any recorded tree (ML-Agents' are about 10 deep).
constexpr int kMaxDepth = static_cast<int>(kMaxTreeDepth);

using detail::fail_at;
using detail::finite_number;
using detail::object_of;
using detail::Problem;
using detail::seconds;
using detail::string_of;
using detail::where;
using detail::whole_count;

// Gauges written from NaN or infinity are null: read back as NaN, "no value".
double gauge_number(od::value v, const char* field) {
    if (v.type() == od::json_type::null) return std::numeric_limits<double>::quiet_NaN();
    return finite_number(v, field);
}

void read_gauge_fields(od::value gauge, Gauge& g, std::string* name) {
    for (auto field : object_of(gauge, "a gauge")) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "name" && name != nullptr)
            *name = string_of(v, "name");
        else if (key == "value")
            g.value = gauge_number(v, "value");
        else if (key == "min")
            g.min = gauge_number(v, "min");
        else if (key == "max")
            g.max = gauge_number(v, "max");
        else if (key == "count")
            g.count = whole_count(v, "count");
        // Other keys (e.g. a count of non-finite values) are later additions: skipped.
    }
}

void read_gauges(od::value v, TimerTree& tree) {
    const od::json_type t = v.type();
    if (t == od::json_type::array) {
        for (auto item : v.get_array()) {
            od::value gv = item.value();
            std::string name;
            Gauge g;
            read_gauge_fields(gv, g, &name);
            tree.gauge(name) = g;
        }
        return;
    }
    for (auto field : object_of(v, "\"gauges\"")) {
        const std::string name(std::string_view(field.unescaped_key()));
        Gauge g;
        read_gauge_fields(field.value(), g, nullptr);
        tree.gauge(name) = g;
    }
}

void read_metadata(od::value v, TimerTree& tree) {
    for (auto field : object_of(v, "\"metadata\"")) {
        const std::string key(std::string_view(field.unescaped_key()));
        od::value value = field.value();
        if (value.type() == od::json_type::string) {
            tree.set_metadata(key, std::string_view(value.get_string()));
        } else {
            tree.set_metadata(key, std::string_view(simdjson::to_json_string(value)));
        }
    }
}

void read_node(od::value node_value, TimerNode& node, TimerTree* root_extras, int depth);

void read_children(od::value v, TimerNode& node, int depth) {
    const od::json_type t = v.type();
    if (t == od::json_type::array) {
        for (auto item : v.get_array()) {
            TimerNode c;
            read_node(item.value(), c, nullptr, depth + 1);
            node.children.push_back(std::move(c));
        }
    } else if (t == od::json_type::object) {
        for (auto child_field : v.get_object()) {
            TimerNode c;
            c.name = std::string(std::string_view(child_field.unescaped_key()));
            read_node(child_field.value(), c, nullptr, depth + 1);
            node.children.push_back(std::move(c));
        }
    } else {
        fail_at(v, "\"children\" is neither a list nor an object");
    }
}

void read_node(od::value node_value, TimerNode& node, TimerTree* root_extras, int depth) {
    if (depth > kMaxDepth) {
        fail_at(node_value, "the tree is nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    const char* start = where(node_value);
    bool has_total = false, has_count = false;
    for (auto field : object_of(node_value, depth == 0 ? "the top level" : "a timer node")) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "name") {
            node.name = string_of(v, "name");
        } else if (key == "total") {
            node.total = seconds(v, "total");
            has_total = true;
        } else if (key == "count") {
            node.count = whole_count(v, "count");
            has_count = true;
        } else if (key == "is_parallel") {
            if (v.type() != od::json_type::boolean) fail_at(v, "\"is_parallel\" is not true or false");
            node.is_parallel = v.get_bool();
        } else if (key == "children") {
            read_children(v, node, depth);
        } else if (key == "gauges" && root_extras != nullptr) {
            read_gauges(v, *root_extras);
        } else if (key == "metadata" && root_extras != nullptr) {
            read_metadata(v, *root_extras);
        } else if (depth == 0 && key == "traceEvents") {
            fail_at(v, "this is a Chrome trace (\"traceEvents\"); expected a timer tree");
        } else if (depth == 0 && key == "format") {
            fail_at(v, "this looks like a ringprof stats file (\"format\"); expected a timer tree");
        }
        // "self" is derived; unknown keys are skipped for forward compatibility.
    }
    if (!has_total || !has_count) {
        throw Problem{std::string(depth == 0 ? "the top level" : "a timer node") + " has no numeric " +
                          (!has_total ? "\"total\"" : "\"count\"") + "; expected a timer tree node",
                      start};
    }
}

}  // namespace

TimerTree parse_timers_json(std::string_view text, std::string_view source) {
    TimerTree tree;
    tree.root.name.clear();
    const std::string problem = detail::read_json_object(text, "the top level is not an object; expected a timer tree",
                                                         [&](od::value top) { read_node(top, tree.root, &tree, 0); });
    if (!problem.empty()) throw TimersJsonError(std::string(source) + ": not a timers file: " + problem);
    // ML-Agents' oldest files have a nameless root.
    if (tree.root.name.empty()) tree.root.name = "root";
    return tree;
}

TimerTree load_timers_json(const std::string& path) {
    std::string text;
    const std::string problem = detail::read_file_text(path, text);
    if (!problem.empty()) throw TimersJsonError(path + ": " + problem);
    return parse_timers_json(text, path);
}

}  // namespace ringprof
