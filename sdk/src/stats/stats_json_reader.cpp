// Reads <run_id>_stats.json with simdjson's On-Demand API, which can say where a problem is, so
// an error names the file, the problem and its line and column.
#include <simdjson.h>

#include <fstream>
#include <sstream>

#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

namespace od = simdjson::ondemand;

struct Problem {
    std::string what;
};

std::uint64_t count_of(od::value v, const char* field) {
    if (v.type() != od::json_type::number) throw Problem{std::string("\"") + field + "\" is not a number"};
    const double d = v.get_double();
    if (d < 0 || d != static_cast<double>(static_cast<std::uint64_t>(d))) {
        throw Problem{std::string("\"") + field + "\" is not a count"};
    }
    return static_cast<std::uint64_t>(d);
}

double seconds_of(od::value v, const char* field) {
    if (v.type() != od::json_type::number) throw Problem{std::string("\"") + field + "\" is not a number"};
    return v.get_double();
}

std::string string_of(od::value v, const char* field) {
    if (v.type() != od::json_type::string) throw Problem{std::string("\"") + field + "\" is not a string"};
    return std::string(std::string_view(v.get_string()));
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

CalleeStats read_callee(od::object obj) {
    CalleeStats c;
    bool has_index = false;
    for (auto field : obj) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "callee") {
            c.callee = static_cast<std::size_t>(count_of(v, "callee"));
            has_index = true;
        } else {
            read_count_field(key, v, c.counts);
        }
    }
    if (!has_index) throw Problem{"a callee has no \"callee\" index"};
    return c;
}

FunctionStats read_function(od::object obj) {
    FunctionStats f;
    bool has_name = false, has_calls = false;
    for (auto field : obj) {
        const std::string_view key = field.unescaped_key();
        od::value v = field.value();
        if (key == "file") {
            f.file = string_of(v, "file");
        } else if (key == "line") {
            f.line = static_cast<std::uint32_t>(count_of(v, "line"));
        } else if (key == "name") {
            f.name = string_of(v, "name");
            has_name = true;
        } else if (key == "signature") {
            f.signature = string_of(v, "signature");
        } else if (key == "callees") {
            if (v.type() != od::json_type::array) throw Problem{"\"callees\" is not a list"};
            for (auto item : v.get_array()) f.callees.push_back(read_callee(item.get_object()));
        } else if (read_count_field(key, v, f.counts)) {
            has_calls = has_calls || key == "ncalls";
        }
        // Unknown keys are skipped: later versions may add fields.
    }
    if (!has_name) throw Problem{"a function has no \"name\""};
    if (!has_calls) throw Problem{"a function has no \"ncalls\""};
    return f;
}

std::string position_of(std::string_view text, const char* at) {
    if (at == nullptr || at < text.data() || at > text.data() + text.size()) return "at end of input";
    std::size_t line = 1, column = 1;
    for (const char* p = text.data(); p < at; ++p) {
        if (*p == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "at line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

std::vector<FunctionStats> parse_stats_json(std::string_view text, std::string_view source) {
    simdjson::padded_string padded(text);
    od::parser parser;
    od::document doc;
    std::vector<FunctionStats> stats;
    bool iterating = false;
    auto fail = [&](const std::string& what) {
        const char* at = nullptr;
        if (iterating) {  // a document that never started has no location to ask for
            auto loc = doc.current_location();
            if (!loc.error()) at = loc.value_unsafe();
        }
        throw StatsFileError(std::string(source) + ": not a ringprof stats file: " + what + " " +
                             position_of(std::string_view(padded.data(), text.size()), at));
    };
    bool has_format = false, has_functions = false;
    try {
        doc = parser.iterate(padded);
        iterating = true;
        if (doc.type() != od::json_type::object) fail("the top level is not an object");
        for (auto field : doc.get_object()) {
            const std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "format") {
                if (string_of(v, "format") != "ringprof-stats") throw Problem{"\"format\" is not \"ringprof-stats\""};
                has_format = true;
            } else if (key == "version") {
                if (count_of(v, "version") > 1) {
                    throw Problem{"written by a newer ringprof (format version above 1)"};
                }
            } else if (key == "functions") {
                if (v.type() != od::json_type::array) throw Problem{"\"functions\" is not a list"};
                for (auto item : v.get_array()) stats.push_back(read_function(item.get_object()));
                has_functions = true;
            }
        }
    } catch (const simdjson::simdjson_error& e) {
        fail(e.what());
    } catch (const Problem& p) {
        fail(p.what);
    }
    if (!has_format) throw StatsFileError(std::string(source) + ": not a ringprof stats file: no \"format\": \"ringprof-stats\"");
    if (!has_functions) throw StatsFileError(std::string(source) + ": not a ringprof stats file: no \"functions\" list");
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw StatsFileError(path + ": cannot open the file for reading");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) throw StatsFileError(path + ": read error");
    return parse_stats_json(buf.str(), path);
}

}  // namespace ringprof
