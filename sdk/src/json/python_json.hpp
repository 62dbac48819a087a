// A JSON value as smdebug's Python writes it back after reading it (json.dumps defaults: ", " and
// ": " separators, ensure_ascii escapes, repr floats), so merged files read like smdebug's.
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

namespace ringprof::detail {

// Re-serializes a parsed value; returns false (leaving `out` partly written) if the value cannot be
// read, e.g. a number out of range.
bool append_python_value(std::string& out, simdjson::ondemand::value v);

}  // namespace ringprof::detail
