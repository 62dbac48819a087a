// ringprof flame INPUT [-o OUT] [--format html|svg|folded]
// Draws the flame graph report of a saved timers JSON (either ML-Agents form), a trace, or a folder
// of timelines (read as ringprof merge reads it).
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <string>
#include <system_error>

#include "arguments.hpp"
#include "command.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/output_files.hpp"

namespace {

using namespace ringprof::cli;

const char kName[] = "flame";
const char kUsageLine[] = "usage: ringprof flame INPUT [-o OUT] [--format html|svg|folded]";
const char kUsage[] =
    "usage: ringprof flame INPUT [-o OUT] [--format html|svg|folded]\n"
    "\n"
    "Draws a flame graph from a saved timers JSON (<run_id>_timers.json, either ML-Agents form,\n"
    "also files written by ML-Agents), a Chrome trace / pythontimeline (.json or .json.gz), or a\n"
    "folder of timelines as ringprof merge reads it (smdebug's layout or a ringprof output folder):\n"
    "every node's threads, and in the HTML page a steps view (each node's time per step, the\n"
    "straggler of each step outlined) when the timelines have steps.\n"
    "\n"
    "Exit status: 0 written, 3 written but some inputs of the folder were skipped or malformed\n"
    "events left out (listed on stderr), 1 nothing could be drawn, 2 bad arguments.\n"
    "\n"
    "  -o, --output OUT   file to write ('-' for standard output); default: <input stem>_flame.html,\n"
    "                     _flame.svg or _folded.txt in the current directory\n"
    "  -f, --format FMT   html (interactive report, the default), svg (static flame graph) or\n"
    "                     folded (\"a;b;c 1234\" lines, self time in microseconds); without it the\n"
    "                     extension of OUT decides (.svg, .txt/.folded), else html\n";

const Option kOptions[] = {
    {"--output", "-o", kTakesValue},
    {"--format", "-f", kTakesValue},
    {"--help", "-h", kNoValue},
};

bool ends_with(const std::string& s, const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string strip(std::string s, const char* suffix) {
    if (ends_with(s, suffix)) s.resize(s.size() - std::strlen(suffix));
    return s;
}

// "logs/run_timers.json" -> "run"; "x.trace.json.gz" -> "x"; a folder: its name ("jobs/run1/"
// and "." in jobs/run1 -> "run1").
std::string stem_of(std::string input) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
        std::filesystem::path folder = std::filesystem::absolute(input, ec).lexically_normal();
        if (folder.filename().empty()) folder = folder.parent_path();
        input = folder.filename().string();
    }
    const auto slash = input.find_last_of('/');
    std::string s = slash == std::string::npos ? input : input.substr(slash + 1);
    s = strip(strip(s, ".gz"), ".json");
    for (const char* tail : {"_timers", ".trace", "_trace", "_pythontimeline", "_merged_timeline"}) s = strip(s, tail);
    return s.empty() ? "profile" : s;
}

int run(int argc, char** argv) {
    std::string input, output, format;
    for (Arguments args(argc, argv, kOptions); args.next();) {
        if (args.is("--help")) {
            return write_stdout(kName, kUsage) ? kExitOk : kExitFailed;
        } else if (args.is("--output")) {
            output = args.value();
        } else if (args.is("--format")) {
            format = args.value();
        } else if (input.empty()) {
            input = args.operand();
        } else {
            return usage_error(kName, kUsageLine,
                               fmt::format("one input only (got '{}' and '{}')", input, args.operand()));
        }
    }
    if (input.empty()) {
        return usage_error(kName, kUsageLine, "no input file given");
    }
    if (format.empty()) {
        format = ends_with(output, ".svg")                                     ? "svg"
                 : (ends_with(output, ".txt") || ends_with(output, ".folded")) ? "folded"
                                                                               : "html";
    }
    if (format != "html" && format != "svg" && format != "folded") {
        return usage_error(kName, kUsageLine, fmt::format("unknown format '{}' (html, svg or folded)", format));
    }
    if (output.empty()) {
        output = stem_of(input) + (format == "html" ? "_flame.html" : format == "svg" ? "_flame.svg" : "_folded.txt");
    }

    if (output != "-" && same_file(input, output)) {
        report(kName,
               fmt::format("{}: -o names the input file, which the output would replace; choose another", output));
        return kExitUsage;
    }

    std::string text;
    std::size_t skipped = 0;
    try {
        const ringprof::FlameProfile profile = ringprof::load_flame_profile(input);
        // As merge and steps report them: inputs left out whole, then event-level problems.
        for (const std::string& why : profile.skipped_inputs) report(kName, "skipped " + why);
        for (const std::string& note : profile.notes) report(kName, "warning: " + note);
        skipped = profile.skipped_inputs.size() + profile.events_dropped;
        if (format == "html") {
            text = ringprof::render_html(profile);
        } else if (format == "svg") {
            ringprof::SvgOptions options;
            options.title = fmt::format("{} - flame graph", profile.title);
            text = ringprof::render_svg(profile.merged, options);
        } else {
            text = ringprof::render_folded(profile.merged);
        }
    } catch (const std::bad_alloc&) {
        report(kName, out_of_memory(input));
        return kExitFailed;
    } catch (const std::exception& e) {
        report(kName, e.what());
        return kExitFailed;
    }
    const int done = skipped ? kExitPartial : kExitOk;
    if (output == "-") return write_stdout(kName, text) ? done : kExitFailed;
    try {
        ringprof::write_file_atomically(output, text);
    } catch (const std::exception& e) {
        report(kName, e.what());
        return kExitFailed;
    }
    report(kName, fmt::format("wrote {}", output));
    return done;
}

const ringprof::cli::Command command{kName, "draw a flame graph (HTML, SVG or folded stacks) from a saved profile",
                                     kUsageLine, &run};

}  // namespace
