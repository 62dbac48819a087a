#include "flame_html_backend.hpp"

#include "ringprof/flame.hpp"
#include "ringprof/output_files.hpp"

namespace ringprof::backends {

void FlameHtmlBackend::on_start(const RunInfo& run) {
    run_id_ = run.run_id;
    path_ = run.output_dir + "/" + run.run_id + "_flame.html";
}

void FlameHtmlBackend::on_snapshot(const Snapshot& snapshot) {
    write_file_atomically(path_, render_html(flame_profile(snapshot, run_id_)));
}

}  // namespace ringprof::backends
