// Small pieces for writing JSON text the way Python's json module does, so our files diff
// cleanly against files written by ML-Agents and smdebug.
#pragma once

#include <string>
#include <string_view>

namespace ringprof::detail {

// Python's repr() of a float: shortest round-trip digits, "100.0" (never "100"), "1e-05",
// "1.5e+16"; NaN and infinities as Python's json writes them.
void append_python_float(std::string& out, double value);

// A JSON string literal with quotes, escaping what JSON requires.
void append_json_string(std::string& out, std::string_view s);

}  // namespace ringprof::detail
