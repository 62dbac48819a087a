// <output_dir>/<run_id>_stats.txt (the cProfile table, standard-name order) and
// <run_id>_stats.json (the saved profile `ringprof stats` prints with other orders and limits),
// rewritten at every snapshot.
#pragma once

#include <string>

#include "ringprof/backend.hpp"

namespace ringprof::backends {

class StatsBackend : public Backend {
public:
    const char* name() const override { return "stats"; }
    void on_start(const RunInfo& run) override;
    void on_snapshot(const Snapshot& snapshot) override;

    const std::string& table_path() const { return table_path_; }
    const std::string& json_path() const { return json_path_; }

private:
    std::string run_id_;
    std::string table_path_;
    std::string json_path_;
};

}  // namespace ringprof::backends
