// <output_dir>/<run_id>_flame.html: the interactive flame graph report (merged and per-thread
// views), rewritten at every snapshot.
#pragma once

#include <string>

#include "ringprof/backend.hpp"

namespace ringprof::backends {

class FlameHtmlBackend : public Backend {
public:
    const char* name() const override { return "flame"; }
    void on_start(const RunInfo& run) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& path() const { return path_; }

private:
    std::string run_id_;
    std::string path_;
};

}  // namespace ringprof::backends
