// <output_dir>/<run_id>_flame.svg: a static flame graph of the process tree, for pages and
// reports where a script cannot run.
#pragma once

#include <string>

#include "ringprof/backend.hpp"

namespace ringprof::backends {

class FlameSvgBackend : public Backend {
public:
    const char* name() const override { return "flame_svg"; }
    void on_start(const RunInfo& run) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& path() const { return path_; }

private:
    std::string run_id_;
    std::string path_;
};

}  // namespace ringprof::backends
