#include "ringprof/system_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "json/json_text.hpp"
#include "merge/system_metric_rows.hpp"
#include "system_stats/numpy_numbers.hpp"
#include "system_stats/training_phases.hpp"

namespace ringprof {

namespace {

namespace d = detail;

// smdebug's defaults (smdebug/profiler/analysis/rules/*.py).
constexpr double kLowGpuP95 = 70, kLowGpuP5 = 10;
constexpr std::size_t kLowGpuWindow = 500, kPatience = 1000;
constexpr double kBottleneckShare = 50, kBottleneckGpu = 10, kBottleneckCpu = 90, kSnapshotWindowS = 0.02;
constexpr double kLoadBalancingDistance = 0.2;
constexpr double kStepStddevs = 3;
constexpr std::size_t kStepMinimum = 100, kStepOutliersAllowed = 10;

std::string num(double v) {
    std::string out;
    d::append_python_float(out, v);
    return out;
}

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return d::numpy_percentile_linear(v, q);
}

struct Sample {
    double t;
    double value;
};

// The steps whose events overlap [start_s, end_s] on `node` (any node when none there).
void name_steps(const std::vector<d::PhaseEvent>& steps, const std::string& node, RuleFinding& f) {
    const long double lo = static_cast<long double>(f.start_s) * 1e6L, hi = static_cast<long double>(f.end_s) * 1e6L;
    for (int pass = 0; pass < 2 && !f.first_step; ++pass) {
        for (const d::PhaseEvent& e : steps) {
            if (e.step == -1 || (pass == 0 && e.node.find(node) == std::string::npos)) continue;
            if (e.end_us < lo || e.start_us > hi) continue;
            f.first_step = std::min(f.first_step.value_or(e.step), e.step);
            f.last_step = std::max(f.last_step.value_or(e.step), e.step);
        }
    }
}

RuleResult low_gpu_utilization(const std::map<std::pair<std::string, std::string>, std::vector<Sample>>& gpus,
                               const std::vector<d::PhaseEvent>& steps) {
    RuleResult r{"LowGPUUtilization", "threshold_p95=70 threshold_p5=10 window=500 patience=1000", false, "", {}};
    std::size_t checked = 0;
    for (const auto& [key, samples] : gpus) {
        if (samples.size() <= kPatience) continue;
        ++checked;
        const std::vector<Sample> last(samples.end() - static_cast<std::ptrdiff_t>(kLowGpuWindow), samples.end());
        std::vector<double> values;
        for (const Sample& s : last) values.push_back(s.value);
        const double p95 = quantile(values, 0.95), p5 = quantile(values, 0.05);
        std::string what;
        if (p95 < kLowGpuP95)
            what = "under-used: p95 " + num(p95) + " % < 70 % over the last 500 samples";
        else if (p95 > kLowGpuP95 && p5 < kLowGpuP5)
            what = "fluctuating: p95 " + num(p95) + " % > 70 % and p5 " + num(p5) + " % < 10 % over the last 500 samples";
        else
            continue;
        RuleFinding f{key.first, key.second, last.front().t, last.back().t, std::nullopt, std::nullopt, {}, what};
        name_steps(steps, key.first, f);
        r.findings.push_back(std::move(f));
    }
    r.triggered = !r.findings.empty();
    r.summary = checked == 0 ? "no GPU with more than 1000 samples: nothing to check"
                             : std::to_string(r.findings.size()) + " of " + std::to_string(checked) +
                                   " GPUs with more than 1000 samples under-used or fluctuating";
    return r;
}

RuleResult cpu_bottleneck(const std::vector<d::SystemRow>& rows, const std::vector<d::PhaseEvent>& steps) {
    RuleResult r{"CPUBottleneck", "threshold=50 gpu_threshold=10 cpu_threshold=90 patience=1000", false, "", {}};
    // smdebug's snapshots: a row more than 20 ms from the snapshot's time starts a new one; a
    // snapshot is a bottleneck when a GPU is below 10 % and a core above 90 % in it.
    struct Snapshot {
        double t = 0, last_t = 0;
        bool low_gpu = false, high_cpu = false;
        std::vector<std::string> gpus, nodes;
    };
    std::vector<Snapshot> snapshots;
    double current = 0;
    for (const d::SystemRow& row : rows) {
        if (snapshots.empty() || std::abs(current - row.timestamp) > kSnapshotWindowS) {
            current = row.timestamp;
            snapshots.push_back({row.timestamp, row.timestamp, false, false, {}, {}});
        }
        Snapshot& s = snapshots.back();
        s.last_t = row.timestamp;
        if (row.dimension == "GPUUtilization" && row.value < kBottleneckGpu) {
            s.low_gpu = true;
            if (std::find(s.gpus.begin(), s.gpus.end(), row.name) == s.gpus.end()) s.gpus.push_back(row.name);
            if (std::find(s.nodes.begin(), s.nodes.end(), row.node) == s.nodes.end()) s.nodes.push_back(row.node);
        } else if (row.dimension == "CPUUtilization" && row.value > kBottleneckCpu) {
            s.high_cpu = true;
        }
    }
    std::size_t bottlenecks = 0;
    const Snapshot* first = nullptr;
    const Snapshot* last = nullptr;
    std::vector<std::string> gpus, nodes;
    for (const Snapshot& s : snapshots) {
        if (!s.low_gpu || !s.high_cpu) continue;
        ++bottlenecks;
        if (!first) first = &s;
        last = &s;
        for (const auto& g : s.gpus)
            if (std::find(gpus.begin(), gpus.end(), g) == gpus.end()) gpus.push_back(g);
        for (const auto& n : s.nodes)
            if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    }
    const double share = snapshots.empty() ? 0 : static_cast<double>(bottlenecks) / double(snapshots.size()) * 100;
    r.summary = std::to_string(bottlenecks) + " of " + std::to_string(snapshots.size()) + " snapshots (" + num(share) +
                " %) with a GPU below 10 % and a core above 90 %";
    if (snapshots.size() <= kPatience) {
        r.summary += "; more than 1000 snapshots are needed to judge";
        return r;
    }
    if (share <= kBottleneckShare) return r;
    r.triggered = true;
    std::string node_list, gpu_list;
    for (const auto& n : nodes) node_list += (node_list.empty() ? "" : " ") + n;
    for (const auto& g : gpus) gpu_list += (gpu_list.empty() ? "" : " ") + g;
    RuleFinding f{node_list, gpu_list, first->t, last->last_t, std::nullopt, std::nullopt, {},
                  "CPU bottleneck in " + num(share) + " % of snapshots (more than 50 %)"};
    name_steps(steps, nodes.size() == 1 ? nodes.front() : std::string(), f);
    r.findings.push_back(std::move(f));
    return r;
}

// scipy.stats.entropy(p, m): both normalized to sum 1, natural log, terms with p = 0 left out.
double relative_entropy(const std::vector<double>& p, const std::vector<double>& m) {
    double sp = 0, sm = 0;
    for (double x : p) sp += x;
    for (double x : m) sm += x;
    double h = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] > 0) h += p[i] / sp * std::log((p[i] / sp) / (m[i] / sm));
    return h;
}

RuleResult load_balancing(const std::map<std::pair<std::string, std::string>, std::vector<Sample>>& gpus,
                          const std::vector<d::PhaseEvent>& steps) {
    RuleResult r{"LoadBalancing", "threshold=0.2 patience=1000", false, "", {}};
    // np.histogram(values, bins=np.arange(0, 100, 2)): 49 bins, the last [96, 98] closed; values
    // above 98 % fall in none, as in smdebug.
    std::map<std::string, std::vector<std::pair<std::string, std::vector<double>>>> by_node;
    std::map<std::string, std::pair<double, double>> span;
    for (const auto& [key, samples] : gpus) {
        if (samples.size() <= kPatience) continue;
        std::vector<double> h(49, 0);
        for (const Sample& s : samples) {
            if (s.value < 0 || s.value > 98) continue;
            h[std::min<std::size_t>(static_cast<std::size_t>(s.value / 2), 48)] += 1;
        }
        by_node[key.first].emplace_back(key.second, std::move(h));
        auto& sp = span.try_emplace(key.first, samples.front().t, samples.back().t).first->second;
        sp.first = std::min(sp.first, samples.front().t);
        sp.second = std::max(sp.second, samples.back().t);
    }
    std::size_t pairs = 0;
    for (const auto& [node, hists] : by_node) {
        for (std::size_t i = 0; i < hists.size(); ++i) {
            for (std::size_t j = i + 1; j < hists.size(); ++j) {
                ++pairs;
                const auto& p = hists[i].second;
                const auto& q = hists[j].second;
                std::vector<double> m(p.size());
                for (std::size_t k = 0; k < p.size(); ++k) m[k] = (p[k] + q[k]) / 2;
                const double distance = std::sqrt((relative_entropy(p, m) + relative_entropy(q, m)) / 2);
                if (!(distance > kLoadBalancingDistance)) continue;
                RuleFinding f{node, hists[i].first + " " + hists[j].first, span[node].first, span[node].second,
                              std::nullopt, std::nullopt, {},
                              "utilization histograms " + num(distance) + " apart (more than 0.2)"};
                name_steps(steps, node, f);
                r.findings.push_back(std::move(f));
            }
        }
    }
    r.triggered = !r.findings.empty();
    r.summary = pairs == 0 ? "no node with two GPUs of more than 1000 samples: nothing to check"
                           : std::to_string(r.findings.size()) + " of " + std::to_string(pairs) +
                                 " GPU pairs further apart than 0.2";
    return r;
}

RuleResult step_outlier(const std::vector<d::PhaseEvent>& steps, bool have_framework) {
    RuleResult r{"StepOutlier", "stddev=3 n_outliers=10 (more than 100 steps)", false, "", {}};
    if (!have_framework) {
        r.summary = "no framework timelines: no steps to check";
        return r;
    }
    std::map<std::pair<std::string, std::string>, std::vector<const d::PhaseEvent*>> groups;
    for (const d::PhaseEvent& e : steps) groups[{e.node, e.metric}].push_back(&e);
    std::size_t checked = 0;
    for (const auto& [key, events] : groups) {
        if (events.size() <= kStepMinimum) continue;
        ++checked;
        std::vector<double> values;
        for (const d::PhaseEvent* e : events) values.push_back(static_cast<double>(e->end_us - e->start_us) / 1e6);
        const double mean = d::numpy_mean(values);
        std::vector<double> squares;
        for (double v : values) squares.push_back((v - mean) * (v - mean));
        const double stddev = std::sqrt(d::numpy_mean(squares));
        const double threshold = mean + stddev * kStepStddevs;
        RuleFinding f{key.first, key.second, 0, 0, std::nullopt, std::nullopt, {}, ""};
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (!(values[i] > threshold)) continue;
            const d::PhaseEvent& e = *events[i];
            if (f.steps.empty() || e.start_us / 1e6L < f.start_s) f.start_s = static_cast<double>(e.start_us / 1e6L);
            if (f.steps.empty() || e.end_us / 1e6L > f.end_s) f.end_s = static_cast<double>(e.end_us / 1e6L);
            f.steps.push_back(e.step);
            f.first_step = std::min(f.first_step.value_or(e.step), e.step);
            f.last_step = std::max(f.last_step.value_or(e.step), e.step);
        }
        if (f.steps.size() <= kStepOutliersAllowed) continue;
        f.what = std::to_string(f.steps.size()) + " of " + std::to_string(values.size()) + " steps longer than mean " +
                 num(mean) + " s + 3 x stddev " + num(stddev) + " s = " + num(threshold) + " s";
        r.findings.push_back(std::move(f));
    }
    r.triggered = !r.findings.empty();
    r.summary = checked == 0 ? "no node and phase with more than 100 steps: nothing to check"
                             : std::to_string(r.findings.size()) + " of " + std::to_string(checked) +
                                   " node and phase groups with more than 10 outlier steps";
    return r;
}

std::string time_text(double s) {
    char text[40];
    std::snprintf(text, sizeof text, "%.6f", s);
    return text;
}

}  // namespace

RulesReport evaluate_rules(const std::string& path) {
    RulesReport report;
    if (d::find_system_files(path, std::nullopt).empty())
        throw std::runtime_error(path + ": no system-metrics files (system/<folder>/<10 digits>.algo-<n>.json)");
    const std::vector<d::SystemRow> rows = d::read_system_metrics(path, std::nullopt, report.notes);
    std::map<std::pair<std::string, std::string>, std::vector<Sample>> gpus;  // (node, gpu) -> samples in time order
    for (const d::SystemRow& row : rows)
        if (row.dimension == "GPUUtilization") gpus[{row.node, row.name}].push_back({row.timestamp, row.value});
    d::FrameworkPhases framework;
    bool have_framework = true;
    try {
        framework = d::read_framework_phases(path, 0);  // absolute microseconds
        for (std::string& n : framework.notes) report.notes.push_back(std::move(n));
    } catch (const std::runtime_error&) {
        have_framework = false;  // system metrics alone: the findings name no steps
    }
    report.rules.push_back(low_gpu_utilization(gpus, framework.step_events));
    report.rules.push_back(cpu_bottleneck(rows, framework.step_events));
    report.rules.push_back(load_balancing(gpus, framework.step_events));
    report.rules.push_back(step_outlier(framework.step_events, have_framework));
    return report;
}

std::string render_rules(const RulesReport& report, StatsFormat format) {
    std::string out;
    if (format == StatsFormat::json) {
        out = "{\"rules\": [";
        for (std::size_t i = 0; i < report.rules.size(); ++i) {
            const RuleResult& r = report.rules[i];
            out += i ? ",\n  {" : "\n  {";
            out += "\"rule\": ";
            d::append_json_string(out, r.rule);
            out += ", \"parameters\": ";
            d::append_json_string(out, r.parameters);
            out += std::string(", \"triggered\": ") + (r.triggered ? "true" : "false") + ", \"summary\": ";
            d::append_json_string(out, r.summary);
            out += ", \"findings\": [";
            for (std::size_t k = 0; k < r.findings.size(); ++k) {
                const RuleFinding& f = r.findings[k];
                out += k ? ", {" : "{";
                out += "\"node\": ";
                d::append_json_string(out, f.node);
                out += ", \"device\": ";
                d::append_json_string(out, f.device);
                out += ", \"start_s\": " + time_text(f.start_s) + ", \"end_s\": " + time_text(f.end_s);
                out += ", \"first_step\": " + (f.first_step ? std::to_string(*f.first_step) : std::string("null"));
                out += ", \"last_step\": " + (f.last_step ? std::to_string(*f.last_step) : std::string("null"));
                out += ", \"steps\": [";
                for (std::size_t s = 0; s < f.steps.size(); ++s) out += (s ? ", " : "") + std::to_string(f.steps[s]);
                out += "], \"what\": ";
                d::append_json_string(out, f.what);
                out += "}";
            }
            out += "]}";
        }
        return out + "\n]}\n";
    }
    for (const RuleResult& r : report.rules) {
        out += r.rule + ": " + (r.triggered ? "TRIGGERED" : "ok") + " (" + r.parameters + ")\n  " + r.summary + "\n";
        for (const RuleFinding& f : r.findings) {
            out += "  - node " + f.node + (f.device.empty() ? "" : ", " + f.device) + ", " + time_text(f.start_s) +
                   " .. " + time_text(f.end_s) + " s";
            if (f.first_step) out += ", steps " + std::to_string(*f.first_step) + ".." + std::to_string(*f.last_step);
            out += ": " + f.what + "\n";
        }
    }
    return out;
}

}  // namespace ringprof
