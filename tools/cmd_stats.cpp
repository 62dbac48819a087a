// ringprof stats FILE [--sort KEY] [--limit N] [--full-paths] [--pstats OUT]
// Prints the cProfile-style table of a saved profile (<run_id>_stats.json), or converts it into
// the file Python's pstats loads.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/stats.hpp"

namespace {

using namespace ringprof::cli;

const char kName[] = "stats";
const char kUsageLine[] = "usage: ringprof stats FILE [--sort KEY] [--limit N] [--full-paths] [--pstats OUT]";
const char kUsage[] =
    "usage: ringprof stats FILE [--sort KEY] [--limit N] [--full-paths] [--pstats OUT]\n"
    "\n"
    "Prints the statistics table (cProfile / pstats layout) of a saved profile, the\n"
    "<run_id>_stats.json the \"stats\" backend writes.\n"
    "\n"
    "  -s, --sort KEY     any key pstats sorts by: calls, cumulative, tottime, name, filename,\n"
    "                     line, stdname, pcalls, nfl, their aliases and unambiguous prefixes\n"
    "                     (cum, ...), or -1, 0, 1, 2; default stdname\n"
    "  -n, --limit N      print the first N rows only\n"
    "      --full-paths   print source files with their directories\n"
    "      --pstats OUT   instead of printing, write OUT in the format of Python's pstats (what\n"
    "                     cProfile's dump_stats writes): pstats.Stats(OUT), snakeviz, gprof2dot\n";

const Option kOptions[] = {
    {"--sort", "-s", kTakesValue},  {"--limit", "-n", kTakesValue}, {"--pstats", "", kTakesValue},
    {"--full-paths", "", kNoValue}, {"--help", "-h", kNoValue},
};

bool parse_limit(const std::string& text, std::size_t& limit) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (v == 0) return false;
    limit = static_cast<std::size_t>(v);
    return true;
}

int run(int argc, char** argv) {
    std::string input, pstats_output;
    ringprof::StatsTableOptions options;
    for (Arguments args(argc, argv, kOptions); args.next();) {
        const std::string& v = args.value();
        if (args.is("--help")) {
            return write_stdout(kName, kUsage) ? kExitOk : kExitFailed;
        } else if (args.is("--sort")) {
            const auto key = ringprof::parse_stats_sort(v);
            if (!key) {
                return usage_error(kName, kUsageLine,
                                   fmt::format("unknown sort key '{}' (known: {})", v, ringprof::stats_sort_keys()));
            }
            options.sort = *key;
        } else if (args.is("--limit")) {
            if (!parse_limit(v, options.limit)) {
                return usage_error(kName, kUsageLine,
                                   fmt::format("--limit needs a positive whole number, not '{}'", v));
            }
        } else if (args.is("--pstats")) {
            if (v.empty()) return usage_error(kName, kUsageLine, "--pstats needs a file name");
            pstats_output = v;
        } else if (args.is("--full-paths")) {
            options.strip_dirs = false;
        } else if (input.empty()) {
            input = args.operand();
        } else {
            return usage_error(kName, kUsageLine,
                               fmt::format("one file only (got '{}' and '{}')", input, args.operand()));
        }
    }
    if (input.empty()) {
        return usage_error(kName, kUsageLine, "no file given");
    }
    if (!pstats_output.empty() && pstats_output == input) {
        return usage_error(kName, kUsageLine, fmt::format("--pstats {} would replace the input", pstats_output));
    }
    if (!pstats_output.empty()) {
        try {
            ringprof::write_file_atomically(pstats_output, ringprof::write_pstats(ringprof::load_stats_json(input)));
        } catch (const std::exception& e) {
            report(kName, e.what());
            return kExitFailed;
        }
        report(kName, fmt::format("wrote {}", pstats_output));
        return kExitOk;
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
