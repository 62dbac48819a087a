// The three forms of `ringprof steps`' answer: smdebug's CSV, a table for people, JSON for programs.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "json/json_text.hpp"
#include "ringprof/step_statistics.hpp"
#include "trace/trace_number.hpp"

namespace ringprof {

namespace {

// As Python prints a float (pandas writes describe()'s numbers so): 1250.0, 1e-06.
void append_float(std::string& out, double v) { detail::append_number(out, detail::TraceNumber::floating(v)); }

// pandas' to_csv quoting: only fields holding the separator, a quote or a line break, quotes doubled.
void append_csv_field(std::string& out, const std::string& field) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

std::string us(double v) { return fmt::format("{:.1f}", v); }

// How many times each node held a step back (slower than the median of the others: a step where
// every node took as long has no straggler), most first.
std::vector<std::pair<std::string, std::uint64_t>> slowest_counts(const StepAnalysis& a) {
    std::map<std::string, std::uint64_t> counts;
    for (const auto& s : a.steps)
        if (s.median_of_others_us && s.slowest_us > *s.median_of_others_us) ++counts[s.slowest_node];
    std::vector<std::pair<std::string, std::uint64_t>> out(counts.begin(), counts.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    return out;
}

std::string outlier_rule(const StepAnalysis& a) {
    return fmt::format("step time > median + k * MAD of the step times ({} + {} * {} = {} us)", us(a.step_median_us),
                       a.outlier_k, us(a.step_mad_us), us(a.step_median_us + a.outlier_k * a.step_mad_us));
}

}  // namespace

std::string render_step_csv(const StepAnalysis& a, StepGrouping by) {
    std::string out(step_grouping_name(by));
    out += ",duration_mean_us,duration_min_us,duration_max_us,duration_p50_us,duration_p95_us,duration_p99_us\n";
    for (const StepGroupStats& r : a.by(by)) {
        append_csv_field(out, r.group);
        for (double v : {r.mean_us, r.min_us, r.max_us, r.p50_us, r.p95_us, r.p99_us}) {
            out += ',';
            append_float(out, v);
        }
        out += '\n';
    }
    return out;
}

std::string render_step_table(const StepAnalysis& a, StepGrouping by) {
    const std::vector<StepGroupStats>& rows = a.by(by);
    std::size_t width = step_grouping_name(by).size();
    for (const auto& r : rows) width = std::max(width, r.group.size());
    std::string out;
    auto line = [&](auto&&... cols) {
        fmt::format_to(std::back_inserter(out), "{:<{}}  {:>6}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}\n",
                       cols...);
    };
    line(step_grouping_name(by), width, "steps", "mean_us", "min_us", "max_us", "p50_us", "p95_us", "p99_us");
    for (const auto& r : rows)
        line(r.group, width, r.steps, us(r.mean_us), us(r.min_us), us(r.max_us), us(r.p50_us), us(r.p95_us),
             us(r.p99_us));
    if (!a.steps.empty()) {
        out += "\nsteps (node = host and process; slowest = longest span of its events in the step):\n";
        std::size_t node_width = 12;
        for (const auto& s : a.steps) node_width = std::max(node_width, s.slowest_node.size());
        fmt::format_to(std::back_inserter(out), "{:>8}  {:>12}  {:<{}}  {:>12}  {:>16}  {:>6}  {}\n", "step",
                       "duration_us", "slowest_node", node_width, "slowest_us", "median_others_us", "ratio", "outlier");
        for (const auto& s : a.steps) {
            const std::string median = s.median_of_others_us ? us(*s.median_of_others_us) : "-";
            const std::string ratio = s.median_of_others_us && *s.median_of_others_us > 0
                                          ? fmt::format("{:.2f}", s.slowest_us / *s.median_of_others_us)
                                          : "-";
            fmt::format_to(std::back_inserter(out), "{:>8}  {:>12}  {:<{}}  {:>12}  {:>16}  {:>6}  {}\n", s.step,
                           us(s.duration_us), s.slowest_node, node_width, us(s.slowest_us), median, ratio,
                           s.outlier ? "OUTLIER" : "");
        }
        const auto counts = slowest_counts(a);
        if (!counts.empty()) {
            out += "slower than the others' median most often:";
            for (const auto& [node, n] : counts) fmt::format_to(std::back_inserter(out), " {} ({} steps)", node, n);
            out += '\n';
        }
        std::uint64_t outliers = 0;
        for (const auto& s : a.steps) outliers += s.outlier ? 1 : 0;
        fmt::format_to(std::back_inserter(out), "outliers: {} of {} steps; rule: {}\n", outliers, a.steps.size(),
                       outlier_rule(a));
    }
    return out;
}

std::string render_step_json(const StepAnalysis& a, StepGrouping by) {
    using detail::append_json_string;
    std::string out = "{\"by\": ";
    append_json_string(out, std::string(step_grouping_name(by)));
    out += ", \"groups\": [";
    bool first = true;
    for (const auto& r : a.by(by)) {
        out += first ? "\n  {" : ",\n  {";
        first = false;
        append_json_string(out, std::string(step_grouping_name(by)));
        out += ": ";
        append_json_string(out, r.group);
        fmt::format_to(std::back_inserter(out), ", \"steps\": {}", r.steps);
        const std::pair<const char*, double> numbers[] = {
            {"duration_mean_us", r.mean_us}, {"duration_min_us", r.min_us}, {"duration_max_us", r.max_us},
            {"duration_p50_us", r.p50_us},   {"duration_p95_us", r.p95_us}, {"duration_p99_us", r.p99_us}};
        for (const auto& [key, v] : numbers) {
            fmt::format_to(std::back_inserter(out), ", \"{}\": ", key);
            append_float(out, v);
        }
        out += '}';
    }
    out += "],\n\"steps\": [";
    first = true;
    for (const auto& s : a.steps) {
        out += first ? "\n  {" : ",\n  {";
        first = false;
        fmt::format_to(std::back_inserter(out), "\"step\": {}, \"duration_us\": ", s.step);
        append_float(out, s.duration_us);
        fmt::format_to(std::back_inserter(out), ", \"nodes\": {}, \"slowest_node\": ", s.nodes);
        append_json_string(out, s.slowest_node);
        out += ", \"slowest_us\": ";
        append_float(out, s.slowest_us);
        out += ", \"median_of_others_us\": ";
        if (s.median_of_others_us)
            append_float(out, *s.median_of_others_us);
        else
            out += "null";
        fmt::format_to(std::back_inserter(out), ", \"outlier\": {}}}", s.outlier ? "true" : "false");
    }
    out += "],\n\"outliers\": {\"rule\": \"duration_us > median_us + k * mad_us\", \"k\": ";
    append_float(out, a.outlier_k);
    out += ", \"median_us\": ";
    append_float(out, a.step_median_us);
    out += ", \"mad_us\": ";
    append_float(out, a.step_mad_us);
    out += ", \"steps\": [";
    first = true;
    for (const auto& s : a.steps) {
        if (!s.outlier) continue;
        fmt::format_to(std::back_inserter(out), "{}{}", first ? "" : ", ", s.step);
        first = false;
    }
    out += "]},\n\"stragglers\": [";
    first = true;
    for (const auto& [node, n] : slowest_counts(a)) {
        out += first ? "{\"node\": " : ", {\"node\": ";
        first = false;
        append_json_string(out, node);
        fmt::format_to(std::back_inserter(out), ", \"steps\": {}}}", n);
    }
    fmt::format_to(std::back_inserter(out), "],\n\"outside_steps\": {{\"events\": {}, \"names\": [",
                   a.events_outside_steps);
    first = true;
    for (const auto& n : a.names_outside_steps) {
        if (!first) out += ", ";
        first = false;
        append_json_string(out, n);
    }
    out += "]}}\n";
    return out;
}

}  // namespace ringprof
