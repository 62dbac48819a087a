// Small trace folders written by the tests themselves, and a reader for the merged output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <simdjson.h>

#include "temp_dir.hpp"

namespace merge_test {

namespace fs = std::filesystem;

// Where the fixtures' timelines start, in µs since the epoch.
constexpr std::int64_t kBase = 1594662605000000;

using ringprof::testing::read_text;
using ringprof::testing::TempDir;

void write_file(const fs::path& p, const std::string& content);
void write_gzip(const fs::path& p, const std::string& content);

// <root>/framework/pevents/<hour>/<end_us>_<node>_<suffix>
fs::path pevents_file(const fs::path& root, std::int64_t end_us, const std::string& node, const std::string& suffix);

// One pythontimeline-style file: the time base, then each phase declared before its events.
struct PhaseEvent {
    std::string phase;
    std::string name;
    std::int64_t ts;  // relative to the base
    std::int64_t dur;
    std::string args;  // JSON object text or empty
};
std::string smdebug_timeline(std::int64_t base_us, const std::vector<PhaseEvent>& events);

// The merged output, parsed.
struct OutEvent {
    std::string name, ph, args_json;
    std::int64_t pid = 0, tid = 0;
    double ts = 0, dur = 0;
    std::string meta_name;  // args.name of M events
};
std::vector<OutEvent> read_output(const std::string& path);
std::vector<OutEvent> only_x(const std::vector<OutEvent>& all);
std::string thread_name_of(const std::vector<OutEvent>& all, std::int64_t pid, std::int64_t tid);

}  // namespace merge_test
