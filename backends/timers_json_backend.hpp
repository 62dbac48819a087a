// <output_dir>/<run_id>_timers.json: the ML-Agents timer tree, rewritten at every snapshot.
#pragma once

#include <string>

#include "ringprof/backend.hpp"
#include "ringprof/config.hpp"

namespace ringprof::backends {

class TimersJsonBackend : public Backend {
public:
    explicit TimersJsonBackend(TimersFormat format) : format_(format) {}
    const char* name() const override { return "timers"; }
    void on_start(const RunInfo& run) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& path() const { return path_; }

private:
    TimersFormat format_;
    std::string path_;
};

}  // namespace ringprof::backends
