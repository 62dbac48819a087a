#include "ringprof/system_statistics.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "json/json_text.hpp"
#include "merge/system_metric_rows.hpp"
#include "system_stats/numpy_numbers.hpp"

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
                if (h == "Resource" || h == "type" || h == "nodeID" || h == "dimension")
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

}  // namespace

SystemStatistics analyze_system_metrics(const std::string& path) {
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
    return s;
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
