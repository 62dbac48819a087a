// The table in pstats' print_stats layout (which cProfile and accelerate.profiler use), so
// people and scripts used to those read it without surprises.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>

#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

const char* order_description(StatsSort sort) {
    switch (sort) {
        case StatsSort::Calls: return "call count";
        case StatsSort::Cumulative: return "cumulative time";
        case StatsSort::Tottime: return "internal time";
        case StatsSort::Name: return "function name";
        case StatsSort::Filename: return "file name";
        case StatsSort::Line: return "line number";
        case StatsSort::Stdname: break;
    }
    return "standard name";
}

std::string shown_file(const std::string& file, bool strip_dirs) {
    if (!strip_dirs) return file;
    const std::size_t slash = file.find_last_of('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
}

// pstats' f8: eight columns, three decimals.
std::string f8(double seconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%8.3f", seconds);
    return buf;
}

struct Row {
    const FunctionStats* f;
    std::string file;
    std::string stdname;  // "file:line(label)"
};

bool sorts_before(const Row& a, const Row& b, StatsSort sort) {
    const CallCounts& x = a.f->counts;
    const CallCounts& y = b.f->counts;
    switch (sort) {
        case StatsSort::Calls:
            if (x.ncalls != y.ncalls) return x.ncalls > y.ncalls;
            break;
        case StatsSort::Cumulative:
            if (x.cumtime != y.cumtime) return x.cumtime > y.cumtime;
            break;
        case StatsSort::Tottime:
            if (x.tottime != y.tottime) return x.tottime > y.tottime;
            break;
        case StatsSort::Name: {
            const int c = a.f->label().compare(b.f->label());
            if (c != 0) return c < 0;
            break;
        }
        case StatsSort::Filename:
            if (a.file != b.file) return a.file < b.file;
            break;
        case StatsSort::Line:
            if (a.f->line != b.f->line) return a.f->line < b.f->line;
            break;
        case StatsSort::Stdname:
            break;
    }
    return a.stdname < b.stdname;  // pstats keeps ties in profiler order; we make them stable
}

}  // namespace

void print_stats_table(std::ostream& out, const std::vector<FunctionStats>& stats, const StatsTableOptions& options) {
    std::uint64_t total_calls = 0, primitive_calls = 0;
    double total_time = 0.0;
    std::vector<Row> rows;
    rows.reserve(stats.size());
    for (const FunctionStats& f : stats) {
        total_calls += f.counts.ncalls;
        primitive_calls += f.counts.primitive_calls;
        total_time += f.counts.tottime;
        Row r{&f, shown_file(f.file, options.strip_dirs), {}};
        r.stdname = r.file + ":" + std::to_string(f.line) + "(" + f.label() + ")";
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const Row& a, const Row& b) { return sorts_before(a, b, options.sort); });

    if (!options.source.empty()) out << options.source << "\n\n";
    out << "         " << total_calls << " function calls ";
    if (total_calls != primitive_calls) out << "(" << primitive_calls << " primitive calls) ";
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, "in %.3f seconds\n\n", total_time);
    out << seconds;
    if (rows.empty()) return;

    out << "   Ordered by: " << order_description(options.sort) << "\n";
    const std::size_t all = rows.size();
    if (options.limit != 0 && options.limit < all) {
        rows.resize(options.limit);
        out << "   List reduced from " << all << " to " << rows.size() << " due to restriction <" << options.limit
            << ">\n";
    }
    out << "\n   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n";
    for (const Row& r : rows) {
        const CallCounts& c = r.f->counts;
        std::string ncalls = std::to_string(c.ncalls);
        if (c.ncalls != c.primitive_calls) ncalls += "/" + std::to_string(c.primitive_calls);
        if (ncalls.size() < 9) ncalls.insert(0, 9 - ncalls.size(), ' ');
        out << ncalls << ' ' << f8(c.tottime) << ' '
            << (c.ncalls == 0 ? std::string(8, ' ') : f8(c.tottime / static_cast<double>(c.ncalls))) << ' '
            << f8(c.cumtime) << ' '
            << (c.primitive_calls == 0 ? std::string(8, ' ')
                                       : f8(c.cumtime / static_cast<double>(c.primitive_calls)))
            << ' ' << r.stdname << '\n';
    }
    out << "\n\n";
}

std::string stats_table(const std::vector<FunctionStats>& stats, const StatsTableOptions& options) {
    std::ostringstream out;
    print_stats_table(out, stats, options);
    return out.str();
}

}  // namespace ringprof
