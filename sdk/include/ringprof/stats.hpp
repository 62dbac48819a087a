// Flat, cProfile-style statistics: one row per function (per distinct argument signature for
// PROF_FUNCTION_SIG markers), derived from the per-thread call trees. Snapshot::stats holds them;
// ringprof/profile.hpp wraps them in accelerate.profiler's Profile API; the "stats" backend
// writes them as <run_id>_stats.txt (the table) and <run_id>_stats.json (read back by
// `ringprof stats`). Times are in seconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringprof {

// Counts and times of calls, as cProfile keeps them.
struct CallCounts {
    std::uint64_t ncalls = 0;           // every call
    std::uint64_t primitive_calls = 0;  // calls with no caller of the same row on the stack
    double tottime = 0.0;               // inside the function itself, sub-calls excluded
    double cumtime = 0.0;               // including sub-calls; a recursive call counts once
};

// The calls one row made to another (cProfile's sub-entries).
struct CalleeStats {
    std::size_t callee = 0;  // index of the callee's row in the same vector
    CallCounts counts;       // primitive/cumtime: recursion of this caller->callee pair
};

struct FunctionStats {
    std::string file;  // as the compiler spelled __FILE__
    std::uint32_t line = 0;
    std::string name;       // the marker's name (the function's, for function markers)
    std::string signature;  // "(a:vector<float>(shape=(16,)))", or empty without one
    CallCounts counts;
    std::vector<CalleeStats> callees;
    // The marker's function (Site::function): rows of one label but different functions are
    // kept apart (two Python code objects defined on one line, as cProfile counts them).
    std::string function;

    // "dot(a:...)": what the table prints in parentheses after file:line.
    std::string label() const { return name + signature; }
};

// The table's sort keys, with pstats' meanings: counts and times descending, names ascending
// (Nfl: name, then file, then line).
enum class StatsSort { Calls, Cumulative, Tottime, Name, Filename, Line, Stdname, Pcalls, Nfl };

// Accepts every key pstats' sort_stats accepts: calls/ncalls, cumulative/cumtime, tottime/time,
// name, filename/file/module, line, stdname, pcalls, nfl, any unambiguous prefix of one
// ("cum", "std"), and the legacy integers "-1" (stdname), "0" (calls), "1" (time), "2" (cumulative).
std::optional<StatsSort> parse_stats_sort(std::string_view key);
// The key names, for usage messages.
const char* stats_sort_keys();

struct StatsTableOptions {
    StatsSort sort = StatsSort::Stdname;  // cProfile's print_stats() default
    std::size_t limit = 0;                // print at most this many rows (0: all)
    bool strip_dirs = true;               // "dot.cpp:7", as cProfile.Profile.print_stats shows
    std::string source;                   // printed first when set, as pstats does for files
};

// Writes the table in pstats' layout. Ties of the sort key keep stdname order.
void print_stats_table(std::ostream& out, const std::vector<FunctionStats>& stats,
                       const StatsTableOptions& options = {});
std::string stats_table(const std::vector<FunctionStats>& stats, const StatsTableOptions& options = {});

// The saved profile (<run_id>_stats.json): every row with its callees, full file paths.
std::string write_stats_json(const std::vector<FunctionStats>& stats, std::string_view run_id = {});

// The statistics in the file format of Python's pstats (what cProfile's dump_stats writes, a
// marshal-serialized dict): pstats.Stats(path), snakeviz, gprof2dot and tuna open it. Each
// (file, line, name + signature) is one entry, with its callers; C functions named as cProfile
// names them belong in file "~", line 0.
std::string write_pstats(const std::vector<FunctionStats>& stats);

class StatsFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `source` names the input in error messages (which also give the position of the problem).
std::vector<FunctionStats> parse_stats_json(std::string_view text, std::string_view source = "<input>");
std::vector<FunctionStats> load_stats_json(const std::string& path);

}  // namespace ringprof
