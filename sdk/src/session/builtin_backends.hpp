// The outputs ringprof writes without being asked, by the names RINGPROF_BACKENDS uses.
// Declared here, where the session starts them, and defined in backends/builtin_backends.cpp: the
// engine asks for "the built-in backends" and never sees one, so the backends, which build on the
// engine (TimelineBackend, the process's files), sit above it and nothing below includes them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ringprof/backend.hpp"
#include "ringprof/config.hpp"

namespace ringprof::backends {

std::vector<std::string> builtin_backend_names();

// The built-in backends named in `config.backends` (every one when it is empty). An unknown
// name is reported on stderr, with the valid names, and skipped.
std::vector<std::unique_ptr<Backend>> make_builtin_backends(const Config& config);

}  // namespace ringprof::backends
