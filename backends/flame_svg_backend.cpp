#include "flame_svg_backend.hpp"

#include "ringprof/flame.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::backends {

void FlameSvgBackend::on_start(const RunInfo& run) {
    run_id_ = run.run_id;
    path_ = run.output_dir + "/" + run.run_id + "_flame.svg";
}

void FlameSvgBackend::on_snapshot(const Snapshot& snapshot) {
    SvgOptions options;
    options.title = run_id_ + " - flame graph";
    write_file_atomically(path_, render_svg(snapshot.tree.root, options));
}

}  // namespace ringprof::backends
