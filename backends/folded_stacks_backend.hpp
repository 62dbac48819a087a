// <output_dir>/<run_id>_folded.txt: folded stacks of the process tree ("root;a;b 1234", self
// time in whole microseconds) for flamegraph.pl, inferno and speedscope.
#pragma once

#include <string>

#include "ringprof/backend.hpp"

namespace ringprof::backends {

class FoldedStacksBackend : public Backend {
public:
    const char* name() const override { return "folded"; }
    void on_start(const RunInfo& run) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace ringprof::backends
