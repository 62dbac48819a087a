// The shape of every output written whole at each snapshot (the timers file, the statistics,
// the flame graphs, the folded stacks): a backend name, and per file a suffix and a function
// rendering its text. Each file is <output_dir>/<run_id><suffix>, replaced atomically at every
// snapshot (ringprof::AtomicFile): a reader never sees half a file, and a failed write keeps the
// previous version. The built-in outputs are made this way (backends/builtin_backends.cpp); a
// program's own output can be too:
//
//     session.add_backend(std::make_unique<ringprof::SnapshotFileBackend>("slowest",
//         std::vector<ringprof::SnapshotFile>{{"_slowest.txt",
//             [](const ringprof::Snapshot& s, const ringprof::RunInfo&) { return report(s.tree); }}}));
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ringprof/backend.hpp"

namespace ringprof {

struct SnapshotFile {
    std::string suffix;  // appended to <run_id>: "<run_id><suffix>" must be a name (see output_path)
    std::function<std::string(const Snapshot&, const RunInfo&)> render;
};

class SnapshotFileBackend : public Backend {
public:
    // Files are written in the order given: put first the one a later failure should not cost.
    SnapshotFileBackend(std::string name, std::vector<SnapshotFile> files);

    const char* name() const override { return name_.c_str(); }
    void on_start(const RunInfo& run) override;
    // Renders and replaces every file; throws OutputError (naming the file) at the first that
    // cannot be written.
    void on_snapshot(const Snapshot& snapshot) override;

    // The files' paths, in the order given (known after on_start).
    const std::vector<std::string>& paths() const { return paths_; }

private:
    std::string name_;
    std::vector<SnapshotFile> files_;
    RunInfo run_;
    std::vector<std::string> paths_;
};

}  // namespace ringprof
