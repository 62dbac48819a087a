// Where a JSON text first breaks the grammar. simdjson (3.0) reports a structural error found in
// its first stage without any position (a file cut at byte 446 came out as "byte 0"), so when it
// refuses a text this walks the text once more, without recursion, to name the exact byte.
// It is used only after simdjson has failed, never to read data.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ringprof::detail {

struct JsonSyntaxProblem {
    bool found = false;      // false: the text is valid JSON (the problem is elsewhere)
    std::size_t offset = 0;  // byte of the first offending character (the size when the text ends early)
    std::string what;        // e.g. "expected ',' or '}' in an object"
};

JsonSyntaxProblem find_json_syntax_problem(std::string_view text);

// "at byte N (line L, column C)"; an offset at or past the end says "at the end of the input, byte N ...".
std::string describe_offset(std::string_view text, std::size_t offset);

}  // namespace ringprof::detail
