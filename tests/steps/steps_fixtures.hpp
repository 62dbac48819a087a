// Shared by the step-statistics tests: running `ringprof steps`, reading its CSV back, and writing
// small smdebug-layout folders.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace steps_test {

using ringprof::testing::read_text;
using ringprof::testing::TempDir;

// Where the fixtures' timelines start, in µs since the epoch.
constexpr long long kBase = 1594662605000000;

using ringprof::testing::ToolRun;

// `ringprof steps ARGS`.
inline ToolRun run_steps(const std::string& args) { return ringprof::testing::run_ringprof("steps " + args); }

// A CSV as pandas writes it (QUOTE_MINIMAL), row by row, field by field.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
        } else if (c == '\n') {
            row.push_back(field);
            field.clear();
            rows.push_back(row);
            row.clear();
            any = false;
            continue;
        } else if (c != '\r') {
            field += c;
        }
        any = true;
    }
    if (any) {
        row.push_back(field);
        rows.push_back(row);
    }
    return rows;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// One X event of a pythontimeline file, `args` as JSON text (empty: none).
struct Ev {
    std::string name;
    int pid;
    long long ts, dur;
    std::string args;
};

// <root>/framework/pevents/<hour>/<end>_<node>_<suffix> with a time base and named pids.
inline void write_timeline(const std::filesystem::path& root, const std::string& node, long long end_us,
                           const std::string& suffix, long long base,
                           const std::vector<std::pair<int, std::string>>& processes, const std::vector<Ev>& events) {
    std::string text =
        "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": " +
        std::to_string(base) + "}}";
    for (const auto& [pid, name] : processes)
        text += ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(pid) +
                ", \"args\": {\"name\": \"" + name + "\"}}";
    for (const Ev& e : events) {
        text += ",\n{\"name\": \"" + e.name + "\", \"ph\": \"X\", \"pid\": " + std::to_string(e.pid) +
                ", \"tid\": 1, \"ts\": " + std::to_string(e.ts) + ", \"dur\": " + std::to_string(e.dur);
        if (!e.args.empty()) text += ", \"args\": " + e.args;
        text += "}";
    }
    text += "\n]";
    write_file(root / "framework" / "pevents" / "2020071317" / (std::to_string(end_us) + "_" + node + "_" + suffix),
               text);
}

}  // namespace steps_test
