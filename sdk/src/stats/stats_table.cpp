// The table in pstats' print_stats layout (which cProfile and accelerate.profiler use), so
// people and scripts used to those read it without surprises.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <ostream>
#include <string>

#include "json/json_text.hpp"
#include "ringprof/stats.hpp"

namespace ringprof {

namespace {

const char* order_description(StatsSort sort) {
    switch (sort) {
        case StatsSort::Calls:
            return "call count";
        case StatsSort::Cumulative:
            return "cumulative time";
        case StatsSort::Tottime:
            return "internal time";
        case StatsSort::Name:
            return "function name";
        case StatsSort::Filename:
            return "file name";
        case StatsSort::Line:
            return "line number";
        case StatsSort::Pcalls:
            return "primitive call count";
        case StatsSort::Nfl:
            return "name/file/line";
        case StatsSort::Stdname:
            break;
    }
    return "standard name";
}

std::string shown_file(const std::string& file, bool strip_dirs) {
    if (!strip_dirs) return file;
    const std::size_t slash = file.find_last_of('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
}

// pstats' func_std_string: C functions (file "~", line 0: how cProfile stores them, and the
// Python module's profile rows) print as `{built-in method builtins.len}`, anything else as
// file:line(label).
std::string printed_name(const std::string& file, const FunctionStats& f) {
    if (f.file == "~" && f.line == 0) {
        const std::string label = f.label();
        if (label.size() >= 2 && label.front() == '<' && label.back() == '>') {
            return "{" + label.substr(1, label.size() - 2) + "}";
        }
        return label;
    }
    return fmt::format(FMT_COMPILE("{}:{}({})"), file, f.line, f.label());
}

struct Row {
    const FunctionStats* f;
    std::string file;
    std::string stdname;  // "file:line(label)", as printed
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
        case StatsSort::Pcalls:
            if (x.primitive_calls != y.primitive_calls) return x.primitive_calls > y.primitive_calls;
            break;
        case StatsSort::Nfl: {
            const int c = a.f->label().compare(b.f->label());
            if (c != 0) return c < 0;
            if (a.file != b.file) return a.file < b.file;
            if (a.f->line != b.f->line) return a.f->line < b.f->line;
            break;
        }
        case StatsSort::Stdname:
            break;
    }
    return a.stdname < b.stdname;  // pstats keeps ties in profiler order; we make them stable
}

}  // namespace

std::string stats_table(const std::vector<FunctionStats>& stats, const StatsTableOptions& options) {
    std::uint64_t total_calls = 0, primitive_calls = 0;
    double total_time = 0.0;
    std::vector<Row> rows;
    rows.reserve(stats.size());
    for (const FunctionStats& f : stats) {
        total_calls += f.counts.ncalls;
        primitive_calls += f.counts.primitive_calls;
        total_time += f.counts.tottime;
        Row r{&f, shown_file(f.file, options.strip_dirs), {}};
        // Names and files hold whatever bytes the program gave; the table is UTF-8 text.
        r.stdname = detail::valid_utf8(printed_name(r.file, f));
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const Row& a, const Row& b) { return sorts_before(a, b, options.sort); });

    std::string out;
    auto to = std::back_inserter(out);
    if (!options.source.empty()) fmt::format_to(to, FMT_COMPILE("{}\n\n"), options.source);
    fmt::format_to(to, FMT_COMPILE("         {} function calls "), total_calls);
    if (total_calls != primitive_calls) fmt::format_to(to, FMT_COMPILE("({} primitive calls) "), primitive_calls);
    fmt::format_to(to, FMT_COMPILE("in {:.3f} seconds\n\n"), total_time);
    if (rows.empty()) return out;

    fmt::format_to(to, FMT_COMPILE("   Ordered by: {}\n"), order_description(options.sort));
    const std::size_t all = rows.size();
    if (options.limit != 0 && options.limit < all) {
        rows.resize(options.limit);
        fmt::format_to(to, FMT_COMPILE("   List reduced from {} to {} due to restriction <{}>\n"), all, rows.size(),
                       options.limit);
    }
    out += "\n   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n";
    out.reserve(out.size() + rows.size() * 96);
    for (const Row& r : rows) {
        const CallCounts& c = r.f->counts;
        // ncalls, or "ncalls/primitive" for recursive rows, right-aligned in nine columns; then
        // pstats' f8 columns (eight wide, three decimals), blank where a per-call time is undefined.
        if (c.ncalls != c.primitive_calls) {
            const std::string calls = fmt::format(FMT_COMPILE("{}/{}"), c.ncalls, c.primitive_calls);
            fmt::format_to(to, FMT_COMPILE("{:>9} "), calls);
        } else {
            fmt::format_to(to, FMT_COMPILE("{:>9} "), c.ncalls);
        }
        fmt::format_to(to, FMT_COMPILE("{:8.3f} "), c.tottime);
        if (c.ncalls == 0)
            out.append(8, ' ');
        else
            fmt::format_to(to, FMT_COMPILE("{:8.3f}"), c.tottime / static_cast<double>(c.ncalls));
        fmt::format_to(to, FMT_COMPILE(" {:8.3f} "), c.cumtime);
        if (c.primitive_calls == 0)
            out.append(8, ' ');
        else
            fmt::format_to(to, FMT_COMPILE("{:8.3f}"), c.cumtime / static_cast<double>(c.primitive_calls));
        fmt::format_to(to, FMT_COMPILE(" {}\n"), r.stdname);
    }
    out += "\n\n";
    return out;
}

void print_stats_table(std::ostream& out, const std::vector<FunctionStats>& stats, const StatsTableOptions& options) {
    const std::string table = stats_table(stats, options);
    out.write(table.data(), static_cast<std::streamsize>(table.size()));
}

}  // namespace ringprof
