#include "timers_json_backend.hpp"

#include "ringprof/output_files.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof::backends {

void TimersJsonBackend::on_start(const RunInfo& run) {
    path_ = run.output_dir + "/" + run.run_id + "_timers.json";
}

void TimersJsonBackend::on_snapshot(const Snapshot& snapshot) {
    write_file_atomically(path_, write_timers_json(snapshot.tree, format_));
}

}  // namespace ringprof::backends
