#include "folded_stacks_backend.hpp"

#include "ringprof/flame.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::backends {

void FoldedStacksBackend::on_start(const RunInfo& run) {
    path_ = run.output_dir + "/" + run.run_id + "_folded.txt";
}

void FoldedStacksBackend::on_snapshot(const Snapshot& snapshot) {
    write_file_atomically(path_, render_folded(snapshot.tree.root));
}

}  // namespace ringprof::backends
