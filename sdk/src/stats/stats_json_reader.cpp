// Reads <run_id>_stats.json with simdjson's On-Demand API. Every value is checked for the kind
// the format needs, and an error names the file, the byte where the problem is and what was
// expected there.
#include <simdjson.h>

#include <cmath>

#include "json/value_checks.hpp"
#include "process/file_text.hpp"
#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

namespace od = simdjson::ondemand;

using detail::fail_at;
using detail::object_of;
using detail::Problem;
using detail::seconds;
using detail::string_of;
using detail::where;
using detail::whole_count;

// Fills `c` from a counts field; false if the key is not one of them.
bool read_count_field(std::string_view key, od::value v, CallCounts& c) {
    if (key == "ncalls")
        c.ncalls = whole_count(v, "ncalls");
    else if (key == "primitive_calls")
        c.primitive_calls = whole_count(v, "primitive_calls");
    else if (key == "tottime")
        c.tottime = seconds(v, "tottime");
    else if (key == "cumtime")
        c.cumtime = seconds(v, "cumtime");
    else
        return false;
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
            c.callee = static_cast<std::size_t>(whole_count(v, "callee"));
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
            const std::uint64_t line = whole_count(v, "line");
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
    std::vector<FunctionStats> stats;
    bool has_format = false, has_functions = false;
    const std::string problem = detail::read_json_object(text, "the top level is not an object", [&](od::value top) {
        for (auto field : top.get_object()) {
            const std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "format") {
                if (string_of(v, "format") != "ringprof-stats") fail_at(v, "\"format\" is not \"ringprof-stats\"");
                has_format = true;
            } else if (key == "version") {
                if (whole_count(v, "version") > 1) fail_at(v, "written by a newer ringprof (format version above 1)");
            } else if (key == "functions") {
                if (v.type() != od::json_type::array) fail_at(v, "\"functions\" is not a list");
                for (auto item : v.get_array()) stats.push_back(read_function(item.value()));
                has_functions = true;
            }
        }
    });
    const std::string prefix = std::string(source) + ": not a ringprof stats file: ";
    if (!problem.empty()) throw StatsFileError(prefix + problem);
    const std::size_t top = text.find_first_not_of(" \t\r\n");
    if (!has_format) {
        throw StatsFileError(
            prefix + detail::located_problem(text, "no \"format\": \"ringprof-stats\" in the top-level object", top));
    }
    if (!has_functions) {
        throw StatsFileError(prefix +
                             detail::located_problem(text, "no \"functions\" list in the top-level object", top));
    }
    for (std::size_t i = 0; i < stats.size(); ++i) {
        for (const CalleeStats& c : stats[i].callees) {
            if (c.callee >= stats.size()) {
                throw StatsFileError(std::string(source) + ": function " + std::to_string(i) + " (" + stats[i].label() +
                                     ") names callee " + std::to_string(c.callee) + " of only " +
                                     std::to_string(stats.size()) + " functions");
            }
        }
    }
    return stats;
}

std::vector<FunctionStats> load_stats_json(const std::string& path) {
    std::string text;
    const std::string problem = detail::read_file_text(path, text);
    if (!problem.empty()) throw StatsFileError(path + ": " + problem);
    return parse_stats_json(text, path);
}

}  // namespace ringprof
