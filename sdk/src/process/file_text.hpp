// A whole input file read into memory (timers and stats files are small), with the reasons a
// reader needs to name: missing, unreadable (permissions), a directory, a read error.
#pragma once

#include <string>

namespace ringprof::detail {

// Returns "" on success, else what went wrong (e.g. "cannot open: Permission denied").
std::string read_file_text(const std::string& path, std::string& text);

}  // namespace ringprof::detail
