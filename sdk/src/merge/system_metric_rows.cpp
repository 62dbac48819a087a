#include "merge/system_metric_rows.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "merge/numpy_argsort.hpp"
#include "process/file_text.hpp"

namespace ringprof::detail {

namespace {

namespace fs = std::filesystem;

// smdebug's TIME_BUFFER_DEFAULT: files are chosen by the minute in their name, events lie later.
constexpr double kFileBufferUs = 3 * 60 * 1000 * 1000.0;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// smdebug's ".+/system/.+/(\d{10}).algo-\d+.json" for a file found under <path>/system/<sub>/:
// the name starts with 10 digits, any character, "algo-", digits, any character, "json" (the
// dots are the pattern's, which match anything; nothing is required after "json").
bool smdebug_system_name(const std::string& name) {
    if (name.size() < 10 + 1 + 5 + 1 + 1 + 4) return false;
    for (int i = 0; i < 10; ++i)
        if (!is_digit(name[i])) return false;
    if (name.compare(11, 5, "algo-") != 0) return false;
    std::size_t i = 16;
    if (i >= name.size() || !is_digit(name[i])) return false;
    // \d+ then one character then "json": some split of the digits must leave ".json"-like text.
    while (i < name.size() && is_digit(name[i])) {
        ++i;
        if (i + 5 <= name.size() && name.compare(i + 1, 4, "json") == 0) return true;
    }
    return false;
}

// Python's int(x * 1000 * 1000 * 1000): three roundings, then truncation.
std::int64_t python_ns(double seconds) {
    double x = seconds * 1000;
    x *= 1000;
    x *= 1000;
    return static_cast<std::int64_t>(x);
}

double as_double(TraceNumber n) { return n.is_float ? n.d : static_cast<double>(n.i); }

// Python's int(t * 1000) for a time in microseconds: exact for a whole number (an int in Python),
// one rounding for a float.
std::int64_t python_ns_of_us(TraceNumber us) {
    return us.is_float ? static_cast<std::int64_t>(us.d * 1000) : us.i * 1000;
}

}  // namespace

std::vector<std::string> find_system_files(const std::string& path,
                                           const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us) {
    std::map<std::int64_t, std::vector<std::string>> by_time;  // smdebug's _timestamp_to_filename
    const fs::path root = fs::path(path) / "system";
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return {};
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().parent_path() == root) continue;  // one folder deep at least
        const std::string name = it->path().filename().string();
        // smdebug's listing keeps names matching "(.+)\.json" from their start, then its pattern.
        if (name.find(".json", 1) == std::string::npos || !smdebug_system_name(name)) continue;
        by_time[std::stoll(name.substr(0, 10)) * 1000000].push_back(it->path().string());
    }
    std::vector<std::int64_t> times;
    for (auto& [t, files] : by_time) {
        std::sort(files.begin(), files.end());
        times.push_back(t);
    }
    std::size_t lower = 0, upper = times.size();  // [lower, upper)
    if (range_us) {
        // bisect_right(start - buffer), one back; bisect_left(end + buffer), one more.
        const double start = as_double(range_us->first) - kFileBufferUs;
        const double end = as_double(range_us->second) + kFileBufferUs;
        lower = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), start,
                                                          [](double v, std::int64_t t) { return v < double(t); }) -
                                         times.begin());
        if (lower > 0) --lower;
        upper = static_cast<std::size_t>(
            std::lower_bound(times.begin(), times.end(), end, [](std::int64_t t, double v) { return double(t) < v; }) -
            times.begin());
        upper = std::min(upper + 1, times.size());
    }
    std::vector<std::string> out;
    for (std::size_t i = lower; i < upper; ++i)
        for (auto& f : by_time[times[i]]) out.push_back(std::move(f));
    return out;
}

void read_system_rows(const std::string& file, const std::string& text, std::vector<SystemRow>& rows,
                      std::vector<std::string>& notes) {
    simdjson::dom::parser parser;
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.emplace_back(text.data() + start, end - start);
        start = end + 1;
    }
    for (std::size_t n = 0; n < lines.size(); ++n) {
        const std::string_view line = lines[n];
        SystemRow row;
        std::string problem;
        simdjson::dom::element e;
        if (parser.parse(line.data(), line.size()).get(e) != simdjson::SUCCESS || !e.is_object()) {
            problem = "not a JSON object";
        } else {
            const auto text_field = [&](const char* key, std::string& into) {
                std::string_view s;
                if (e[key].get(s) != simdjson::SUCCESS) {
                    if (problem.empty()) problem = std::string("no text ") + key;
                    return;
                }
                into.assign(s);
            };
            const auto number_field = [&](const char* key, double& into) {
                simdjson::dom::element v;
                if (e[key].get(v) != simdjson::SUCCESS || !v.is_number()) {
                    if (problem.empty()) problem = std::string("no number ") + key;
                    return;
                }
                into = v.get_double().value_unsafe();
            };
            text_field("Type", row.type);
            text_field("Name", row.name);
            text_field("Dimension", row.dimension);
            text_field("NodeId", row.node);
            number_field("Value", row.value);
            number_field("Timestamp", row.timestamp);
        }
        if (!problem.empty()) {
            // The last line is what a writer in mid-line leaves: skipped silently, as smdebug does.
            if (n + 1 != lines.size())
                notes.push_back(file + ": line " + std::to_string(n + 1) + " left out (" + problem + ")");
            continue;
        }
        row.ts_us = static_cast<std::int64_t>(row.timestamp * 1000000.0);
        rows.push_back(std::move(row));
    }
}

std::vector<SystemRow> read_system_rows_in_order(const std::string& path,
                                                 const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us,
                                                 std::vector<std::string>& notes) {
    std::vector<SystemRow> rows;
    for (const std::string& file : find_system_files(path, range_us)) {
        std::string text;
        if (const std::string problem = read_file_text(file, text); !problem.empty()) {
            notes.push_back(file + ": " + problem + "; its system metrics are left out");
            continue;
        }
        const std::size_t before = rows.size();
        read_system_rows(file, text, rows, notes);
        if (range_us) {
            // Compared as Python compares its ints: exactly (nanoseconds since the epoch pass 2^53).
            const std::int64_t start_ns = python_ns_of_us(range_us->first), end_ns = python_ns_of_us(range_us->second);
            rows.erase(std::remove_if(rows.begin() + static_cast<std::ptrdiff_t>(before), rows.end(),
                                      [&](const SystemRow& r) {
                                          const std::int64_t ns = python_ns(r.timestamp);
                                          return ns < start_ns || ns > end_ns;
                                      }),
                       rows.end());
        }
    }
    // Repeated rows kept once: the first of each.
    std::set<std::tuple<std::int64_t, double, std::string, std::string, std::string, std::string>> seen;
    std::vector<SystemRow> unique;
    unique.reserve(rows.size());
    for (auto& r : rows)
        if (seen.emplace(r.ts_us, r.value, r.name, r.dimension, r.node, r.type).second) unique.push_back(std::move(r));
    return unique;
}

std::vector<SystemRow> read_system_metrics(const std::string& path,
                                           const std::optional<std::pair<TraceNumber, TraceNumber>>& range_us,
                                           std::vector<std::string>& notes) {
    std::vector<SystemRow> unique = read_system_rows_in_order(path, range_us, notes);
    // In pandas' order (numpy_argsort.hpp), not a stable one: see there why it matters.
    std::vector<std::int64_t> keys;
    keys.reserve(unique.size());
    for (const SystemRow& r : unique) keys.push_back(r.ts_us);
    std::vector<SystemRow> sorted;
    sorted.reserve(unique.size());
    for (const std::size_t i : numpy_argsort(keys)) sorted.push_back(std::move(unique[i]));
    return sorted;
}

}  // namespace ringprof::detail
