// Writing JSON text the way Python's json.dumps does by default (", " and ": " separators,
// ensure_ascii escapes, repr floats), so merged files read like smdebug's and diff cleanly.
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

namespace ringprof::merge {

// Appends `s` (UTF-8, already validated by the parser) as a quoted, ASCII-only JSON string.
void append_python_string(std::string& out, std::string_view s);

// Re-serializes a parsed value; returns false (leaving `out` partly written) if the value cannot be
// read, e.g. a number out of range.
bool append_python_value(std::string& out, simdjson::ondemand::value v);

}  // namespace ringprof::merge
