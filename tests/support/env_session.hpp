// The session a child process starts at its first marker, set up by the environment as a user
// sets it: output folder, run id (the files' names) and backends.
#pragma once

#include "bounded_process.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {

inline void record_to(const std::string& dir, const char* run_id, const char* backends) {
    set_env("RINGPROF_OUTPUT_DIR", dir);
    set_env("RINGPROF_RUN_ID", run_id);
    set_env("RINGPROF_BACKENDS", backends);
}

inline void record_to(const TempDir& dir, const char* run_id, const char* backends) {
    record_to(dir.str(), run_id, backends);
}

}  // namespace ringprof::testing
