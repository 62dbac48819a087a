// ringprof merge-timers: combine timers JSON files of several processes into one tree.
#include <fmt/format.h>

#include <cstdio>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/timers_json.hpp"

namespace ringprof::cli {
namespace {

const char kName[] = "merge-timers";
const char kUsageLine[] = "usage: ringprof merge-timers [-o OUT] [--graft PATH] [--format list|dict] FILE...";
const char kHelp[] =
    "usage: ringprof merge-timers [-o OUT] [--graft PATH] [--format list|dict] FILE...\n"
    "\n"
    "Merges ML-Agents timers JSON files (either form) into one tree: each file's tree\n"
    "is grafted under PATH (default: merged at the root), every merged node is marked\n"
    "parallel, gauges are combined. A bad or truncated file is reported (file and byte\n"
    "position) and nothing of it is merged; the exit code is then 3 (1 when no file\n"
    "could be read). So is a file whose sums would leave the numbers every reader\n"
    "reads back as written (a total beyond the largest double, a count above 2^53):\n"
    "it is named with the node, and the others are merged. Writes OUT (default:\n"
    "standard output).\n";

const Option kOptions[] = {
    {"--output", "-o", kTakesValue},
    {"--graft", "", kTakesValue},
    {"--format", "", kTakesValue},
    {"--help", "-h", kNoValue},
};

int run(int argc, char** argv) {
    std::string out_path, graft;
    TimersFormat format = TimersFormat::List;
    std::vector<std::string> inputs;
    for (Arguments args(argc, argv, kOptions); args.next();) {
        const std::string& v = args.value();
        if (args.is("--help")) {
            return write_stdout(kName, kHelp) ? kExitOk : kExitFailed;
        } else if (args.is("--output")) {
            out_path = v;
        } else if (args.is("--graft")) {
            graft = v;
        } else if (args.is("--format")) {
            if (v == "dict")
                format = TimersFormat::Dict;
            else if (v == "list")
                format = TimersFormat::List;
            else {
                return usage_error(kName, kUsageLine, fmt::format("--format takes list or dict, not '{}'", v));
            }
        } else {
            inputs.push_back(args.operand());
        }
    }
    if (inputs.empty()) return usage_error(kName, kUsageLine, "no input file given");
    for (const std::string& path : inputs) {
        if (!out_path.empty() && same_file(path, out_path)) {
            report(kName,
                   fmt::format("{}: -o names an input file, which the output would replace; choose another", out_path));
            return kExitUsage;
        }
    }
    TimerTree merged;
    int merged_files = 0, skipped = 0;
    for (const std::string& path : inputs) {
        try {
            const TimerTree t = load_timers_json(path);
            // Merged into a copy first: a file that would overflow a sum is left out whole, and
            // the tree stays one that the file format, and so this command, can read back.
            TimerTree candidate = merged;
            candidate.merge(t, graft, /*parallel=*/true);
            if (const std::optional<std::string> why = unwritable_timers_number(candidate)) {
                report(kName, fmt::format("skipped {}: merging it would make {}; nothing of it merged", path, *why));
                ++skipped;
                continue;
            }
            merged = std::move(candidate);
            ++merged_files;
        } catch (const std::bad_alloc&) {
            report(kName, fmt::format("skipped {}", out_of_memory(path)));
            ++skipped;
        } catch (const std::exception& e) {
            report(kName, fmt::format("skipped {}", e.what()));
            ++skipped;
        }
    }
    if (merged_files == 0) {
        report(kName, "no input could be read; nothing written");
        return kExitFailed;
    }
    // The merged root spans the files' roots, counted once per file.
    merged.root.is_parallel = false;
    merged.set_metadata("merged_files", fmt::format("{}", merged_files));
    std::string text;
    try {
        text = write_timers_json(merged, format);
    } catch (const TimersJsonError& e) {
        report(kName, fmt::format("{}; nothing written", e.what()));
        return kExitFailed;
    }
    if (out_path.empty()) {
        if (!write_stdout(kName, text)) return kExitFailed;
    } else {
        try {
            write_file_atomically(out_path, text);
        } catch (const std::exception& e) {
            report(kName, e.what());
            return kExitFailed;
        }
    }
    return skipped == 0 ? kExitOk : kExitPartial;
}

const Command command{kName, "combine timers JSON files of several processes", kUsageLine, &run};

}  // namespace
}  // namespace ringprof::cli
