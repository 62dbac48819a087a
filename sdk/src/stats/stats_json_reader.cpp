// Reads <run_id>_stats.json with simdjson's On-Demand API. Every value is checked for the kind
// the format needs, and an error names the file, the byte where the problem is and what was
// expected there.
#include <simdjson.h>

#include <cmath>

#include "ringprof/stats.hpp"
#include "trace/file_text.hpp"
#include "trace/json_error_position.hpp"

namespace ringprof {

namespace {

namespace od = simdjson::ondemand;

struct Problem {
    std::string what;
    const char* at = nullptr;  // where in the text; nullptr: unknown
};

const char* where(od::value& v) {
    return v.raw_json_token().data();
}

[[noreturn]] void fail_at(od::value& v, std::string what) { throw Problem{std::move(what), where(v)}; }

double finite_number(od::value v, const char* field) {
    if (v.type() != od::json_type::number) fail_at(v, std::string("\"") + field + "\" is not a number");
    double d;
    if (v.get_double().get(d) || !std::isfinite(d)) fail_at(v, std::string("\"") + field + "\" is out of range");
    return d;
}

std::uint64_t count_of(od::value v, const char* field) {
    const double d = finite_number(v, field);
    // 2^53: beyond it a JSON number no longer names one integer.
    if (d < 0 || d != std::floor(d) || d > 9007199254740992.0) {
        fail_at(v, std::string("\"") + field + "\" is not a whole count >= 0");
    }
    return static_cast<std::uint64_t>(d);
}

double seconds_of(od::value v, const char* field) {
    const double d = finite_number(v, field);
    if (d < 0) fail_at(v, std::string("\"") + field + "\" is a negative time");
    return d;
}

std::string string_of(od::value v, const char* field) {
    if (v.type() != od::json_type::string) fail_at(v, std::string("\"") + field + "\" is not a string");
    return std::string(std::string_view(v.get_string()));
}

od::object object_of(od::value v, const char* what) {
    if (v.type() != od::json_type::object) fail_at(v, std::string(what) + " is not an object");
    return v.get_object();
}

// Fills `c` from a counts field; false if the key is not one of them.
bool read_count_field(std::string_view key, od::value v, CallCounts& c) {
    if (key == "ncalls") c.ncalls = count_of(v, "ncalls");
    else if (key == "primitive_calls") c.primitive_calls = count_of(v, "primitive_calls");
    else if (key == "tottime") c.tottime = seconds_of(v, "tottime");
    else if (key == "cumtime") c.cumtime = seconds_of(v, "cumtime");
    else return false;
    return true;
}

CalleeStats read_callee(od::value callee) {
    CalleeStats c;
    bool has_index = false;
    const char* start = where(callee);
    for (auto field : object_of(callee, "a callee")) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "callee") {
            c.callee = static_cast<std::size_t>(count_of(v, "callee"));
            has_index = true;
        } else {
            read_count_field(key, v, c.counts);
        }
    }
    if (!has_index) throw Problem{"a callee has no \"callee\" index", start};
    return c;
}

FunctionStats read_function(od::value function) {
    FunctionStats f;
    bool has_name = false, has_calls = false;
    const char* start = where(function);
    for (auto field : object_of(function, "a function")) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "file") {
            f.file = string_of(v, "file");
        } else if (key == "line") {
            const std::uint64_t line = count_of(v, "line");
            if (line > 0xFFFFFFFFu) fail_at(v, "\"line\" is out of range");
            f.line = static_cast<std::uint32_t>(line);
        } else if (key == "name") {
            f.name = string_of(v, "name");
            has_name = true;
        } else if (key == "signature") {
            f.signature = string_of(v, "signature");
        } else if (key == "callees") {
            if (v.type() != od::json_type::array) fail_at(v, "\"callees\" is not a list");
            for (auto item : v.get_array()) f.callees.push_back(read_callee(item.value()));
        } else if (read_count_field(key, v, f.counts)) {
            has_calls = has_calls || key == "ncalls";
        }
        // Unknown keys are skipped: later versions may add fields.
    }
    if (!has_name) throw Problem{"a function has no \"name\"", start};
    if (!has_calls) throw Problem{"a function has no \"ncalls\"", start};
    return f;
}

}  // namespace

std::vector<FunctionStats> parse_stats_json(std::string_view text, std::string_view source) {
    simdjson::padded_string padded(text);
    od::parser parser;
    std::vector<FunctionStats> stats;
    const std::string prefix = std::string(source) + ": not a ringprof stats file: ";
    auto fail = [&](const std::string& what, const char* at) {
        // A syntax error is located by walking the text; simdjson does not say where.
        const trace::JsonSyntaxProblem syntax = trace::find_json_syntax_problem(text);
        if (syntax.found) {
            throw StatsFileError(prefix + "invalid JSON: " + syntax.what + " " +
                                 trace::describe_offset(text, syntax.offset));
        }
        const std::size_t offset = at != nullptr && at >= padded.data() && at <= padded.data() + text.size()
                                       ? static_cast<std::size_t>(at - padded.data())
                                       : text.size();
        throw StatsFileError(prefix + what + " " + trace::describe_offset(text, offset));
    };
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) throw StatsFileError(prefix + "the input is empty");
    const char* top = padded.data() + first;
    bool has_format = false, has_functions = false;
    try {
        od::document doc = parser.iterate(padded);
        if (doc.type() != od::json_type::object) throw Problem{"the top level is not an object", top};
        for (auto field : doc.get_object()) {
            const std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "format") {
                if (string_of(v, "format") != "ringprof-stats") fail_at(v, "\"format\" is not \"ringprof-stats\"");
                has_format = true;
            } else if (key == "version") {
                if (count_of(v, "version") > 1) fail_at(v, "written by a newer ringprof (format version above 1)");
            } else if (key == "functions") {
                if (v.type() != od::json_type::array) fail_at(v, "\"functions\" is not a list");
                for (auto item : v.get_array()) stats.push_back(read_function(item.value()));
                has_functions = true;
            }
        }
        if (const auto next = doc.current_location(); !next.error()) {
            throw Problem{"extra data after the end of the JSON value", next.value_unsafe()};
        }
    } catch (const simdjson::simdjson_error& e) {
        fail(e.what(), nullptr);
    } catch (const Problem& p) {
        fail(p.what, p.at);
    }
    if (!has_format) fail("no \"format\": \"ringprof-stats\" in the top-level object", top);
    if (!has_functions) fail("no \"functions\" list in the top-level object", top);
    for (std::size_t i = 0; i < stats.size(); ++i) {
        for (const CalleeStats& c : stats[i].callees) {
            if (c.callee >= stats.size()) {
                throw StatsFileError(std::string(source) + ": function " + std::to_string(i) + " (" +
                                     stats[i].label() + ") names callee " + std::to_string(c.callee) + " of only " +
                                     std::to_string(stats.size()) + " functions");
            }
        }
    }
    return stats;
}

std::vector<FunctionStats> load_stats_json(const std::string& path) {
    std::string text;
    const std::string problem = trace::read_file_text(path, text);
    if (!problem.empty()) throw StatsFileError(path + ": " + problem);
    return parse_stats_json(text, path);
}

}  // namespace ringprof
