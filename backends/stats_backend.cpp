#include "stats_backend.hpp"

#include "ringprof/output_files.hpp"
#include "ringprof/stats.hpp"

namespace ringprof::backends {

void StatsBackend::on_start(const RunInfo& run) {
    run_id_ = run.run_id;
    table_path_ = run.output_dir + "/" + run.run_id + "_stats.txt";
    json_path_ = run.output_dir + "/" + run.run_id + "_stats.json";
}

void StatsBackend::on_snapshot(const Snapshot& snapshot) {
    // The saved profile first: if the table cannot be written, `ringprof stats` still can.
    write_file_atomically(json_path_, write_stats_json(snapshot.stats, run_id_));
    write_file_atomically(table_path_, stats_table(snapshot.stats));
}

}  // namespace ringprof::backends
