#include "ringprof/snapshot_file_backend.hpp"

#include <utility>

#include "ringprof/output_files.hpp"

namespace ringprof {

SnapshotFileBackend::SnapshotFileBackend(std::string name, std::vector<SnapshotFile> files)
    : name_(std::move(name)), files_(std::move(files)) {}

void SnapshotFileBackend::on_start(const RunInfo& run) {
    run_ = run;
    paths_.clear();
    for (const SnapshotFile& f : files_) paths_.push_back(run.output_dir + "/" + run.run_id + f.suffix);
}

void SnapshotFileBackend::on_snapshot(const Snapshot& snapshot) {
    for (std::size_t i = 0; i < files_.size(); ++i) write_file_atomically(paths_[i], files_[i].render(snapshot, run_));
}

}  // namespace ringprof
