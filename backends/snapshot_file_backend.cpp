#include "ringprof/snapshot_file_backend.hpp"

#include <optional>
#include <utility>

#include "ringprof/output_files.hpp"

namespace ringprof {

SnapshotFileBackend::SnapshotFileBackend(std::string name, std::vector<SnapshotFile> files)
    : name_(std::move(name)), files_(std::move(files)) {}

void SnapshotFileBackend::on_start(const RunInfo& run) {
    run_ = run;
    paths_.clear();
    // A file whose name is refused is left out (its path stays empty); the others are written.
    std::optional<OutputError> refused;
    for (const SnapshotFile& f : files_) {
        try {
            paths_.push_back(output_path(run.output_dir, run.run_id + f.suffix));
        } catch (const OutputError& e) {
            paths_.emplace_back();
            if (!refused) refused = e;
        }
    }
    if (refused) throw *refused;
}

void SnapshotFileBackend::on_snapshot(const Snapshot& snapshot) {
    for (std::size_t i = 0; i < files_.size(); ++i) {
        if (!paths_[i].empty()) write_file_atomically(paths_[i], files_[i].render(snapshot, run_));
    }
}

}  // namespace ringprof
