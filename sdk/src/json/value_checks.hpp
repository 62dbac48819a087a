// What the readers of ringprof's own JSON files (timers, stats) share: each value must be of the
// kind the format needs, and a value that is not throws a Problem pointing at itself, so the
// message can name the byte; read_json_object() opens the document and turns the first problem
// into one message, which prefers the exact position of a syntax error when there is one.
#pragma once

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "json/json_error_position.hpp"

namespace ringprof::detail {

namespace od = simdjson::ondemand;

struct Problem {
    std::string what;
    const char* at = nullptr;  // where in the (padded) text; nullptr: unknown
};

inline const char* where(od::value& v) { return v.raw_json_token().data(); }

[[noreturn]] inline void fail_at(od::value& v, std::string what) { throw Problem{std::move(what), where(v)}; }

inline double finite_number(od::value v, const char* field) {
    // ML-Agents' own test files hold "<mock.ANY>" for times; anything but a number is an error.
    if (v.type() != od::json_type::number) fail_at(v, std::string("\"") + field + "\" is not a number");
    double d;
    if (v.get_double().get(d) || !std::isfinite(d)) fail_at(v, std::string("\"") + field + "\" is out of range");
    return d;
}

inline double seconds(od::value v, const char* field) {
    const double d = finite_number(v, field);
    if (d < 0) fail_at(v, std::string("\"") + field + "\" is a negative time");
    return d;
}

inline std::uint64_t whole_count(od::value v, const char* field) {
    const double d = finite_number(v, field);
    // 2^53: beyond it a JSON number no longer names one integer.
    if (d < 0 || d != std::floor(d) || d > 9007199254740992.0) {
        fail_at(v, std::string("\"") + field + "\" is not a whole count >= 0");
    }
    std::uint64_t u;
    if (!v.get_uint64().get(u)) return u;
    return static_cast<std::uint64_t>(d);
}

inline std::string string_of(od::value v, const char* field) {
    if (v.type() != od::json_type::string) fail_at(v, std::string("\"") + field + "\" is not a string");
    return std::string(std::string_view(v.get_string()));
}

inline od::object object_of(od::value v, const char* what) {
    if (v.type() != od::json_type::object) fail_at(v, std::string(what) + " is not an object");
    return v.get_object();
}

// "<what> at byte N (line L, column C)" for a problem at byte `offset` of `text`; when the text
// is not valid JSON at all, the syntax error's own position and description instead (simdjson
// does not say where; the walker does).
inline std::string located_problem(std::string_view text, const std::string& what, std::size_t offset) {
    const detail::JsonSyntaxProblem syntax = detail::find_json_syntax_problem(text);
    if (syntax.found) return "invalid JSON: " + syntax.what + " " + detail::describe_offset(text, syntax.offset);
    return what + " " + detail::describe_offset(text, offset);
}

// Reads `text` as one JSON document holding one object, handed to `read(object)`, which throws
// Problem for what it refuses. Refuses here, for every such reader alike: empty input, a top level
// that is not an object (`not_an_object` says so in the reader's words), data after the object and
// invalid JSON. Returns the first problem, located by located_problem(), or "" when there is none.
template <class Read>
std::string read_json_object(std::string_view text, const char* not_an_object, Read&& read) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return "the input is empty";
    simdjson::padded_string padded(text);
    const auto offset_of = [&](const char* at) {
        return at != nullptr && at >= padded.data() && at <= padded.data() + text.size()
                   ? static_cast<std::size_t>(at - padded.data())
                   : text.size();
    };
    od::parser parser;
    try {
        od::document doc = parser.iterate(padded);
        if (doc.type() != od::json_type::object) return located_problem(text, not_an_object, first);
        od::value top = doc.get_value();
        read(top);
        if (const auto next = doc.current_location(); !next.error()) {
            return located_problem(text, "extra data after the end of the JSON value", offset_of(next.value_unsafe()));
        }
    } catch (const simdjson::simdjson_error& e) {
        return located_problem(text, e.what(), text.size());
    } catch (const Problem& p) {
        return located_problem(text, p.what, offset_of(p.at));
    }
    return {};
}

}  // namespace ringprof::detail
