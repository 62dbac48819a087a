// The name smdebug gives a process in its file names, "<pid>-<host>" with every '_' made '-' (an
// '_' separates the name's fields). ringprof's pythontimeline files are named by it, the merge
// names its output by its own, and finds by it which ringprof traces repeat pythontimeline files.
#pragma once

#include <string>
#include <string_view>

namespace ringprof::detail {

std::string node_id(std::string_view pid, std::string_view host);
std::string node_id(long long pid, std::string_view host);

// This process's: its pid and the machine's host name (empty if it has none).
std::string this_node_id();

}  // namespace ringprof::detail
