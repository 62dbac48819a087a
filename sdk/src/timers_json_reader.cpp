// Reads either ML-Agents form with simdjson's On-Demand API, which can say where in the text a
// problem was found, so an error names the file, line and column.
#include <simdjson.h>

#include <fstream>
#include <sstream>

#include "ringprof/timers_json.hpp"

namespace ringprof {

namespace {

namespace od = simdjson::ondemand;

struct Problem {
    std::string what;
};

double number_of(od::value v) {
    // ML-Agents' own test files hold "<mock.ANY>" for times; anything but a number is an error.
    if (v.type() != od::json_type::number) throw Problem{"a time or count is not a number"};
    return v.get_double();
}

void read_gauge_fields(od::object obj, Gauge& g, std::string* name) {
    for (auto field : obj) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "name" && name != nullptr) *name = std::string(std::string_view(v.get_string()));
        else if (key == "value") g.value = number_of(v);
        else if (key == "min") g.min = number_of(v);
        else if (key == "max") g.max = number_of(v);
        else if (key == "count") g.count = static_cast<std::uint64_t>(number_of(v));
    }
}

void read_gauges(od::value v, TimerTree& tree) {
    if (v.type() == od::json_type::array) {
        for (auto item : v.get_array()) {
            std::string name;
            Gauge g;
            read_gauge_fields(item.get_object(), g, &name);
            tree.gauge(name) = g;
        }
        return;
    }
    for (auto field : v.get_object()) {
        const std::string name(std::string_view(field.unescaped_key()));
        Gauge g;
        read_gauge_fields(field.value().get_object(), g, nullptr);
        tree.gauge(name) = g;
    }
}

void read_metadata(od::value v, TimerTree& tree) {
    for (auto field : v.get_object()) {
        const std::string key(std::string_view(field.unescaped_key()));
        od::value value = field.value();
        if (value.type() == od::json_type::string) {
            tree.set_metadata(key, std::string_view(value.get_string()));
        } else {
            tree.set_metadata(key, std::string_view(simdjson::to_json_string(value)));
        }
    }
}

void read_node(od::object obj, TimerNode& node, TimerTree* root_extras) {
    for (auto field : obj) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "name") {
            node.name = std::string(std::string_view(v.get_string()));
        } else if (key == "total") {
            node.total = number_of(v);
        } else if (key == "count") {
            node.count = static_cast<std::uint64_t>(number_of(v));
        } else if (key == "is_parallel") {
            node.is_parallel = v.get_bool();
        } else if (key == "children") {
            if (v.type() == od::json_type::array) {
                for (auto item : v.get_array()) {
                    TimerNode c;
                    read_node(item.get_object(), c, nullptr);
                    node.children.push_back(std::move(c));
                }
            } else {
                for (auto child_field : v.get_object()) {
                    TimerNode c;
                    c.name = std::string(std::string_view(child_field.unescaped_key()));
                    read_node(child_field.value().get_object(), c, nullptr);
                    node.children.push_back(std::move(c));
                }
            }
        } else if (key == "gauges" && root_extras != nullptr) {
            read_gauges(v, *root_extras);
        } else if (key == "metadata" && root_extras != nullptr) {
            read_metadata(v, *root_extras);
        }
        // "self" is derived; unknown keys are skipped for forward compatibility.
    }
}

std::string position_of(std::string_view text, const char* at) {
    if (at == nullptr || at < text.data() || at > text.data() + text.size()) {
        return "at end of input (byte " + std::to_string(text.size()) + ")";
    }
    std::size_t line = 1, column = 1;
    for (const char* p = text.data(); p < at; ++p) {
        if (*p == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "at line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
           std::to_string(at - text.data()) + ")";
}

}  // namespace

TimerTree parse_timers_json(std::string_view text, std::string_view source) {
    simdjson::padded_string padded(text);
    od::parser parser;
    od::document doc;
    TimerTree tree;
    tree.root.name.clear();
    bool iterating = false;  // a document that never started has no location to ask for
    auto fail = [&](const std::string& what) -> TimerTree {
        const char* at = nullptr;
        if (iterating) {
            auto loc = doc.current_location();
            if (!loc.error()) at = loc.value_unsafe();
        }
        const char* base = padded.data();
        throw TimersJsonError(std::string(source) + ": not a timers file: " + what + " " +
                              position_of(std::string_view(base, text.size()), at));
    };
    try {
        if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return fail("the input is empty");
        doc = parser.iterate(padded);
        iterating = true;
        if (doc.type() != od::json_type::object) return fail("the top level is not an object");
        read_node(doc.get_object(), tree.root, &tree);
    } catch (const simdjson::simdjson_error& e) {
        return fail(e.what());
    } catch (const Problem& p) {
        return fail(p.what);
    }
    // ML-Agents' oldest files have a nameless root.
    if (tree.root.name.empty()) tree.root.name = "root";
    return tree;
}

TimerTree load_timers_json(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TimersJsonError(path + ": cannot open the file for reading");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) throw TimersJsonError(path + ": read error");
    return parse_timers_json(buf.str(), path);
}

}  // namespace ringprof
