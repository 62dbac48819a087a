// ringprof stats FILE [--sort KEY] [--limit N] [--full-paths]
// Prints the cProfile-style table of a saved profile (<run_id>_stats.json).
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "command.hpp"
#include "ringprof/stats.hpp"

namespace {

using namespace ringprof::cli;

const char kName[] = "stats";
const char kUsageLine[] = "usage: ringprof stats FILE [--sort KEY] [--limit N] [--full-paths]";
const char kUsage[] =
    "usage: ringprof stats FILE [--sort KEY] [--limit N] [--full-paths]\n"
    "\n"
    "Prints the statistics table (cProfile / pstats layout) of a saved profile, the\n"
    "<run_id>_stats.json the \"stats\" backend writes.\n"
    "\n"
    "  -s, --sort KEY     calls, cumulative, tottime, name, filename, line or stdname\n"
    "                     (pstats' aliases ncalls, cumtime, time, file also work); default stdname\n"
    "  -n, --limit N      print the first N rows only\n"
    "      --full-paths   print source files with their directories\n";

bool parse_limit(const std::string& text, std::size_t& limit) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (v == 0) return false;
    limit = static_cast<std::size_t>(v);
    return true;
}

int run(int argc, char** argv) {
    std::string input;
    ringprof::StatsTableOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* what) -> const char* {
            if (i + 1 >= argc) {
                usage_error(kName, kUsageLine, fmt::format("{} needs a value", what));
                return nullptr;
            }
            return argv[++i];
        };
        if (arg == "-h" || arg == "--help") {
            return write_stdout(kName, kUsage) ? kExitOk : kExitFailed;
        } else if (arg == "-s" || arg == "--sort" || arg.rfind("--sort=", 0) == 0) {
            const char* v = arg.rfind("--sort=", 0) == 0 ? argv[i] + 7 : value("--sort");
            if (v == nullptr) return kExitUsage;
            const auto key = ringprof::parse_stats_sort(v);
            if (!key) {
                return usage_error(kName, kUsageLine,
                                   fmt::format("unknown sort key '{}' (known: {})", v, ringprof::stats_sort_keys()));
            }
            options.sort = *key;
        } else if (arg == "-n" || arg == "--limit" || arg.rfind("--limit=", 0) == 0) {
            const char* v = arg.rfind("--limit=", 0) == 0 ? argv[i] + 8 : value("--limit");
            if (v == nullptr) return kExitUsage;
            if (!parse_limit(v, options.limit)) {
                return usage_error(kName, kUsageLine, fmt::format("--limit needs a positive whole number, not '{}'", v));
            }
        } else if (arg == "--full-paths") {
            options.strip_dirs = false;
        } else if (arg.size() > 1 && arg[0] == '-') {
            return usage_error(kName, kUsageLine, fmt::format("unknown option '{}'", arg));
        } else if (input.empty()) {
            input = arg;
        } else {
            return usage_error(kName, kUsageLine, fmt::format("one file only (got '{}' and '{}')", input, arg));
        }
    }
    if (input.empty()) {
        return usage_error(kName, kUsageLine, "no file given");
    }
    std::string table;
    try {
        const auto stats = ringprof::load_stats_json(input);
        options.source = input;  // pstats names the file it read above the table
        table = ringprof::stats_table(stats, options);
    } catch (const std::bad_alloc&) {
        report(kName, out_of_memory(input));
        return kExitFailed;
    } catch (const std::exception& e) {
        report(kName, e.what());
        return kExitFailed;
    }
    return write_stdout(kName, table) ? kExitOk : kExitFailed;
}

const Command command{kName, "print the cProfile-style statistics table of a saved profile", kUsageLine, &run};

}  // namespace
