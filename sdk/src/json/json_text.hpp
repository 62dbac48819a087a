// Small pieces for writing JSON text the way Python's json module does, so our files diff
// cleanly against files written by ML-Agents and smdebug.
#pragma once

#include <string>
#include <string_view>

namespace ringprof::detail {

// Python's repr() of a float: shortest round-trip digits, "100.0" (never "100"), "1e-05",
// "1.5e+16". NaN and infinities become `null`: Python's json writes bare NaN/Infinity, which
// strict parsers (browsers' JSON.parse, simdjson, jq) refuse.
void append_python_float(std::string& out, double value);

// A JSON string literal with quotes, for any bytes: control characters escaped, bytes that are
// not valid UTF-8 replaced by U+FFFD. Every ringprof writer of JSON strings goes through here.
// NonAscii::escape writes pure ASCII (\uXXXX) as Python's json.dumps does by default, for files
// that must read like smdebug's.
enum class NonAscii { keep, escape };
void append_json_string(std::string& out, std::string_view s, NonAscii non_ascii = NonAscii::keep);
// True when append_json_string(out, s, NonAscii::escape) writes `s` unchanged between the quotes
// (printable ASCII without '"' or '\\'): then the bytes can be copied as they are.
bool json_plain_ascii(std::string_view s);

// `s` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD (names
// reach the outputs as arbitrary bytes; XML, JSON and browsers all need valid UTF-8).
void append_valid_utf8(std::string& out, std::string_view s);
std::string valid_utf8(std::string_view s);

// Length of the valid UTF-8 sequence starting at s[i], or 0 if s[i] does not start one.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace ringprof::detail
