// <run_id>_stats.json: the saved profile `ringprof stats` reads. One function per line, so two
// saved profiles diff line by line.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string>

#include "json/json_text.hpp"
#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

void append_counts(std::string& out, const CallCounts& c) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("\"ncalls\": {}, \"primitive_calls\": {}, \"tottime\": "),
                   c.ncalls, c.primitive_calls);
    detail::append_python_float(out, c.tottime);
    out += ", \"cumtime\": ";
    detail::append_python_float(out, c.cumtime);
}

}  // namespace

std::string write_stats_json(const std::vector<FunctionStats>& stats, std::string_view run_id) {
    std::string out = "{\n    \"format\": \"ringprof-stats\",\n    \"version\": 1,\n    \"run_id\": ";
    detail::append_json_string(out, run_id);
    out += ",\n    \"time_unit\": \"seconds\",\n    \"functions\": [";
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const FunctionStats& f = stats[i];
        out += i == 0 ? "\n        {" : ",\n        {";
        out += "\"file\": ";
        detail::append_json_string(out, f.file);
        fmt::format_to(std::back_inserter(out), FMT_COMPILE(", \"line\": {}, \"name\": "), f.line);
        detail::append_json_string(out, f.name);
        out += ", \"signature\": ";
        detail::append_json_string(out, f.signature);
        out += ", ";
        append_counts(out, f.counts);
        out += ", \"callees\": [";
        for (std::size_t k = 0; k < f.callees.size(); ++k) {
            out += k == 0 ? "{" : ", {";
            fmt::format_to(std::back_inserter(out), FMT_COMPILE("\"callee\": {}, "), f.callees[k].callee);
            append_counts(out, f.callees[k].counts);
            out += "}";
        }
        out += "]}";
    }
    out += stats.empty() ? "]\n}\n" : "\n    ]\n}\n";
    return out;
}

}  // namespace ringprof
