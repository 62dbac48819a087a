#include "ringprof/system_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "json/json_text.hpp"
#include "merge/system_metric_rows.hpp"
#include "system_stats/numpy_numbers.hpp"
#include "system_stats/training_phases.hpp"

namespace ringprof {

namespace {

namespace d = detail;

// smdebug's Resource values, in its order.
constexpr const char* kResources[] = {"cpu", "gpu", "memory", "i/o", "network"};
// get_device_usage_stats' default ranges, in the order a value is tried against them.
constexpr std::pair<int, int> kUsageRanges[] = {{90, 100}, {10, 90}, {0, 10}};

UtilizationStat describe(std::string resource, std::string dimension, std::string node, std::vector<double> values) {
    UtilizationStat s;
    s.resource = std::move(resource);
    s.dimension = std::move(dimension);
    s.node = std::move(node);
    s.count = values.size();
    s.mean = d::numpy_mean(values);
    std::sort(values.begin(), values.end());
    s.min = values.front();
    s.max = values.back();
    s.p50 = d::numpy_percentile_linear(values, 0.5);
    s.p95 = d::numpy_percentile_linear(values, 0.95);
    s.p99 = d::numpy_percentile_linear(values, 0.99);
    return s;
}

std::string number(double v) {
    std::string out;
    d::append_python_float(out, v);
    return out;
}

std::string range_name(std::pair<int, int> r) {
    return "(" + std::to_string(r.first) + ", " + std::to_string(r.second) + ")";
}

// A CSV field as pandas writes it: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string render(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   StatsFormat format, const char* json_key) {
    std::string out;
    if (format == StatsFormat::csv) {
        for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + csv_field(header[i]);
        out += '\n';
        for (const auto& r : rows) {
            for (std::size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_field(r[i]);
            out += '\n';
        }
        return out;
    }
    if (format == StatsFormat::json) {
        out = "{\"";
        out += json_key;
        out += "\": [";
        for (std::size_t k = 0; k < rows.size(); ++k) {
            out += k ? ",\n  {" : "\n  {";
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (i) out += ", ";
                d::append_json_string(out, header[i]);
                out += ": ";
                const std::string& h = header[i];
                if (h == "Resource" || h == "type" || h == "nodeID" || h == "dimension" || h == "Training_phase")
                    d::append_json_string(out, rows[k][i]);
                else
                    out += rows[k][i];
            }
            out += "}";
        }
        return out + (rows.empty() ? "]}\n" : "\n]}\n");
    }
    std::vector<std::size_t> width(header.size());
    for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    for (const auto& r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
    const auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const std::string pad(width[i] - cells[i].size(), ' ');
            out += i == 0 ? "" : "  ";
            out += i < 2 ? cells[i] + pad : pad + cells[i];  // names left, numbers right
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += '\n';
    };
    line(header);
    for (const auto& r : rows) line(r);
    return out;
}

// PandasFrame's start_time: the first system file's minute (its name), in microseconds.
std::int64_t first_file_us(const std::string& path) {
    const std::vector<std::string> files = d::find_system_files(path, std::nullopt);
    if (files.empty())
        throw std::runtime_error(path + ": no system-metrics files (system/<folder>/<10 digits>.algo-<n>.json)");
    std::int64_t first = 0;
    bool have = false;
    for (const std::string& f : files) {
        const std::string name = f.substr(f.find_last_of('/') + 1);
        const std::int64_t minute = std::stoll(name.substr(0, name.find('.')));
        if (!have || minute < first) first = minute;
        have = true;
    }
    return first * 1000000;
}

// Python's datetime.utcfromtimestamp(us / 1e6).strftime("%Y-%m-%dT%H:%M:%S:%f"): the fraction
// rounded half to even to whole microseconds, as CPython rounds it.
std::string human_time(long double us) {
    double whole = 0;
    double frac = std::modf(static_cast<double>(us) / 1e6, &whole);
    double micros = std::nearbyint(frac * 1e6);
    if (micros >= 1e6) {
        micros -= 1e6;
        whole += 1;
    } else if (micros < 0) {
        micros += 1e6;
        whole -= 1;
    }
    const std::time_t t = static_cast<std::time_t>(whole);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d:%06d", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(micros));
    return text;
}

std::string duration_text(long double v, bool floats) {
    if (!floats) return std::to_string(static_cast<long long>(v));
    return number(static_cast<double>(v));
}

void add_phase_statistics(const std::string& path, const std::vector<d::SystemRow>& rows, SystemStatistics& s) {
    const std::int64_t origin = first_file_us(path);
    d::FrameworkPhases f = d::read_framework_phases(path, origin);
    for (std::string& n : f.notes) s.notes.push_back(std::move(n));
    std::int64_t lo = rows.front().ts_us, hi = rows.front().ts_us;
    for (const d::SystemRow& r : rows) {
        lo = std::min(lo, r.ts_us);
        hi = std::max(hi, r.ts_us);
    }
    const std::vector<d::PhaseInterval> intervals = d::training_phase_intervals(f, lo - origin, hi - origin);
    if (intervals.empty())
        throw std::runtime_error(path + ": no training phase in the framework timelines (no process named "
                                        "Step:ModeKeys.*, or none of its events), so no utilization by phase");
    for (const char* resource : kResources) {
        std::map<std::pair<std::string, std::string>, std::vector<double>> by_phase_node;
        for (const d::SystemRow& r : rows) {
            if (r.type.find(resource) == std::string::npos) continue;
            // A row in no interval has no phase, and pandas' groupby leaves it out.
            if (const std::string* phase = d::phase_at(intervals, static_cast<long double>(r.ts_us - origin)))
                by_phase_node[{*phase, r.node}].push_back(r.value);
        }
        for (auto& [key, values] : by_phase_node) {
            UtilizationStat u = describe(resource, "", key.second, std::move(values));
            u.phase = key.first;
            s.utilization_by_phase.push_back(std::move(u));
        }
    }
}

}  // namespace

SystemStatistics analyze_system_metrics(const std::string& path, bool by_phase) {
    SystemStatistics s;
    if (d::find_system_files(path, std::nullopt).empty())
        throw std::runtime_error(path + ": no system-metrics files (system/<folder>/<10 digits>.algo-<n>.json)");
    const std::vector<d::SystemRow> rows = d::read_system_rows_in_order(path, std::nullopt, s.notes);
    s.rows = rows.size();
    for (const char* resource : kResources) {
        std::map<std::string, std::vector<double>> by_node;
        std::map<std::pair<std::string, std::string>, std::vector<double>> by_node_dimension;
        for (const d::SystemRow& r : rows) {
            if (r.type.find(resource) == std::string::npos) continue;
            by_node[r.node].push_back(r.value);
            by_node_dimension[{r.node, r.dimension}].push_back(r.value);
        }
        for (auto& [node, values] : by_node) s.utilization.push_back(describe(resource, "", node, std::move(values)));
        for (auto& [key, values] : by_node_dimension)
            s.utilization_by_dimension.push_back(describe(resource, key.second, key.first, std::move(values)));
    }
    std::map<std::pair<std::string, std::string>, std::map<std::pair<int, int>, std::uint64_t>> usage;
    std::map<std::pair<int, int>, bool> present;
    for (const d::SystemRow& r : rows) {
        if (r.type.find("cpu") == std::string::npos && r.type.find("gpu") == std::string::npos) continue;
        for (const auto& range : kUsageRanges) {
            if (range.first <= r.value && r.value <= range.second) {
                ++usage[{r.type, r.node}][range];
                present[range] = true;
                break;
            }
        }
    }
    for (const auto& [range, _] : present) s.usage_ranges.push_back(range);
    for (const auto& [key, counts] : usage) {
        DeviceUsage u{key.first, key.second, {}};
        for (const auto& range : s.usage_ranges) {
            const auto it = counts.find(range);
            u.counts.push_back(it == counts.end() ? 0 : it->second);
        }
        s.device_usage.push_back(std::move(u));
    }
    if (by_phase) {
        if (rows.empty()) throw std::runtime_error(path + ": the system-metrics files hold no row");
        add_phase_statistics(path, rows, s);
    }
    return s;
}

JobStatistics analyze_job(const std::string& path) {
    JobStatistics j;
    const std::int64_t origin = first_file_us(path);
    const std::vector<d::SystemRow> rows = d::read_system_rows_in_order(path, std::nullopt, j.notes);
    if (rows.empty()) throw std::runtime_error(path + ": the system-metrics files hold no row");
    std::int64_t lo = rows.front().ts_us, hi = rows.front().ts_us;
    for (const d::SystemRow& r : rows) {
        lo = std::min(lo, r.ts_us);
        hi = std::max(hi, r.ts_us);
    }
    d::FrameworkPhases f = d::read_framework_phases(path, origin);
    for (std::string& n : f.notes) j.notes.push_back(std::move(n));
    // smdebug's step of an event: its step_num, else the step whose span (its Step:ModeKeys events,
    // earliest start to latest end) strictly contains it, the lowest such step.
    std::map<std::int64_t, std::pair<long double, long double>> step_spans;
    for (const d::PhaseEvent& e : f.step_events) {
        if (e.step == -1) continue;
        const auto [it, fresh] = step_spans.try_emplace(e.step, e.start_us, e.end_us);
        if (!fresh) {
            it->second.first = std::min(it->second.first, e.start_us);
            it->second.second = std::max(it->second.second, e.end_us);
        }
    }
    const auto step_of = [&](const d::PhaseEvent& e) -> std::optional<std::int64_t> {
        if (e.step != -1) return e.step;
        for (const auto& [step, span] : step_spans)
            if (span.first < e.start_us && span.second > e.end_us) return step;
        return std::nullopt;
    };
    const d::PhaseEvent* step0 = nullptr;
    for (const d::PhaseEvent& e : f.step_events) {
        if ((e.metric == "Step:ModeKeys.TRAIN" || e.metric == "Step:ModeKeys.GLOBAL") && step_of(e) == 0) {
            step0 = &e;
            break;
        }
    }
    if (step0 == nullptr || !f.max_end_us)
        throw std::runtime_error(path + ": no step 0 of Step:ModeKeys.TRAIN or Step:ModeKeys.GLOBAL in the framework "
                                        "timelines, so no training loop to measure");
    const long double max_end = *f.max_end_us;
    j.floats = step0->is_float || f.max_end_is_float;
    j.start_time = human_time(lo);
    j.end_time = human_time(hi);
    j.job_duration = hi - lo;
    j.training_loop_start = human_time(step0->start_us + origin);
    j.training_loop_end = human_time(max_end + origin);
    j.training_loop_duration = max_end - step0->start_us;
    j.initialization = step0->start_us;
    j.finalization = static_cast<long double>(hi - origin) - max_end;
    const auto share = [&](long double part) {
        return static_cast<double>(part) / static_cast<double>(j.job_duration) * 100;
    };
    j.initialization_pct = share(j.initialization);
    j.training_loop_pct = share(j.training_loop_duration);
    j.finalization_pct = share(j.finalization);
    return j;
}

std::string render_utilization_by_phase(const SystemStatistics& s, StatsFormat format) {
    const std::vector<std::string> header = {"Resource",        "Training_phase",  "nodeID",
                                             "utilization_mean", "utilization_min", "utilization_max",
                                             "utilization_p50",  "utilization_p95", "utilization_p99"};
    std::vector<std::vector<std::string>> rows;
    for (const UtilizationStat& u : s.utilization_by_phase) {
        std::vector<std::string> r = {u.resource, u.phase, u.node};
        for (double v : {u.mean, u.min, u.max, u.p50, u.p95, u.p99}) r.push_back(number(v));
        rows.push_back(std::move(r));
    }
    return render(header, rows, format, "utilization");
}

std::string render_job(const JobStatistics& j, StatsFormat format) {
    const auto pct = [](double v) { return std::isfinite(v) ? number(v) : std::string(v != v ? "NaN" : v > 0 ? "Infinity" : "-Infinity"); };
    const std::vector<std::pair<std::string, std::string>> items = {
        {"start_time", j.start_time},
        {"end_time", j.end_time},
        {"job_duration", duration_text(j.job_duration, false)},
        {"training_loop_start", j.training_loop_start},
        {"training_loop_end", j.training_loop_end},
        {"training_loop_duration", duration_text(j.training_loop_duration, j.floats)},
        {"initialization", duration_text(j.initialization, j.floats)},
        {"finalization", duration_text(j.finalization, j.floats)},
        {"initialization_%", pct(j.initialization_pct)},
        {"training_loop_%", pct(j.training_loop_pct)},
        {"finalization_%", pct(j.finalization_pct)},
    };
    const auto is_text = [](const std::string& key) { return key.find("_time") != std::string::npos ||
                                                             key == "training_loop_start" || key == "training_loop_end"; };
    std::string out;
    if (format == StatsFormat::csv) {
        for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + csv_field(items[i].first);
        out += '\n';
        for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + csv_field(items[i].second);
        return out + '\n';
    }
    if (format == StatsFormat::json) {
        out = "{";
        for (std::size_t i = 0; i < items.size(); ++i) {
            out += i ? ",\n " : "\n ";
            d::append_json_string(out, items[i].first);
            out += ": ";
            const std::string& v = items[i].second;
            if (is_text(items[i].first))
                d::append_json_string(out, v);
            else
                out += (v == "NaN" || v == "Infinity" || v == "-Infinity") ? std::string("null") : v;
        }
        return out + "\n}\n";
    }
    std::size_t width = 0;
    for (const auto& [key, _] : items) width = std::max(width, key.size());
    for (const auto& [key, value] : items) out += key + std::string(width - key.size() + 2, ' ') + value + "\n";
    return out;
}

std::string render_utilization(const SystemStatistics& s, StatsFormat format, bool by_dimension) {
    std::vector<std::string> header = {"Resource",        "nodeID",          "utilization_mean", "utilization_min",
                                       "utilization_max", "utilization_p50", "utilization_p95",  "utilization_p99"};
    if (by_dimension) header.insert(header.begin() + 2, "dimension");
    std::vector<std::vector<std::string>> rows;
    for (const UtilizationStat& u : by_dimension ? s.utilization_by_dimension : s.utilization) {
        std::vector<std::string> r = {u.resource, u.node};
        if (by_dimension) r.push_back(u.dimension);
        for (double v : {u.mean, u.min, u.max, u.p50, u.p95, u.p99}) r.push_back(number(v));
        rows.push_back(std::move(r));
    }
    return render(header, rows, format, "utilization");
}

std::string render_device_usage(const SystemStatistics& s, StatsFormat format) {
    std::vector<std::string> header = {"type", "nodeID"};
    for (const auto& r : s.usage_ranges) header.push_back(range_name(r));
    std::vector<std::vector<std::string>> rows;
    for (const DeviceUsage& u : s.device_usage) {
        std::vector<std::string> r = {u.type, u.node};
        for (std::uint64_t c : u.counts) r.push_back(std::to_string(c));
        rows.push_back(std::move(r));
    }
    return render(header, rows, format, "device_usage");
}

}  // namespace ringprof
