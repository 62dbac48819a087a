// analyze_steps: the merge's files and reader feed per-file step spans (steps/step_events.hpp);
// this thread folds them together, gives events without step_num their step, and describes.
#include "ringprof/step_statistics.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "merge/file_readers.hpp"
#include "merge/trace_files.hpp"
#include "merge/trace_selection.hpp"
#include "steps/describe.hpp"
#include "steps/step_events.hpp"
#include "steps/step_finder.hpp"

namespace ringprof {

namespace m = detail;

std::optional<StepGrouping> step_grouping_named(std::string_view name) {
    if (name == "training_phase") return StepGrouping::training_phase;
    if (name == "process") return StepGrouping::process;
    if (name == "framework_metric") return StepGrouping::framework_metric;
    if (name == "node") return StepGrouping::node;
    return std::nullopt;
}

std::string_view step_grouping_name(StepGrouping by) {
    switch (by) {
        case StepGrouping::training_phase:
            return "training_phase";
        case StepGrouping::process:
            return "process";
        case StepGrouping::framework_metric:
            return "framework_metric";
        case StepGrouping::node:
            return "node";
    }
    return "?";
}

const std::vector<StepGroupStats>& StepAnalysis::by(StepGrouping g) const {
    switch (g) {
        case StepGrouping::training_phase:
            return training_phase;
        case StepGrouping::process:
            return process;
        case StepGrouping::framework_metric:
            return framework_metric;
        case StepGrouping::node:
            return node;
    }
    throw std::invalid_argument("unknown step grouping");
}

namespace {

// Every file's spans under one numbering of names (metrics, processes, nodes).
struct JobSteps {
    m::NameTable metrics, phases, nodes;
    m::StepSpans metric_spans, phase_spans, node_spans;
    std::map<std::int64_t, m::StepSpan> step_marks;  // by step: the order smdebug looks steps up in
    struct Loose {
        m::TraceNumber start, end;
        std::uint32_t metric, phase, node;
    };
    std::vector<Loose> loose;
    std::uint64_t outside = 0;  // events in no step, and their metric names
    std::set<std::uint32_t> outside_metrics;

    static void widen(m::StepSpans& spans, m::StepKey key, const m::StepSpan& s) {
        const auto [it, fresh] = spans.try_emplace(key, s);
        if (!fresh) it->second.widen(s.start, s.end);
    }

    void add(m::FileSteps& f, const std::string& node_name) {
        std::vector<std::uint32_t> metric_ids, phase_ids;
        for (const auto& n : f.metrics.names()) metric_ids.push_back(metrics.id(n));
        for (const auto& n : f.phases.names()) phase_ids.push_back(phases.id(n));
        const std::uint32_t node = nodes.id(node_name);
        for (const auto& [k, s] : f.metric_spans) widen(metric_spans, {k.step, metric_ids[k.group]}, s);
        for (const auto& [k, s] : f.phase_spans) widen(phase_spans, {k.step, phase_ids[k.group]}, s);
        for (const auto& [step, s] : f.node_spans) widen(node_spans, {step, node}, s);
        for (const auto& [step, s] : f.step_marks) {
            const auto [it, fresh] = step_marks.try_emplace(step, s);
            if (!fresh) it->second.widen(s.start, s.end);
        }
        for (const auto& e : f.loose) loose.push_back({e.start, e.end, metric_ids[e.metric], phase_ids[e.phase], node});
        outside += f.outside;
        for (std::uint32_t id : f.outside_metrics) outside_metrics.insert(metric_ids[id]);
        f.clear();
    }
};

double span_us(const m::StepSpan& s) { return m::subtract(s.end, s.start).as_double(); }

// Per group, its spans over the steps, described; rows sorted by name as pandas' groupby sorts.
std::vector<StepGroupStats> describe_groups(const m::StepSpans& spans, const m::NameTable& names, bool marks_only) {
    std::vector<std::vector<double>> per_group(names.names().size());
    for (const auto& [k, s] : spans) per_group[k.group].push_back(span_us(s));
    std::vector<StepGroupStats> rows;
    for (std::size_t g = 0; g < per_group.size(); ++g) {
        const std::string& name = names.names()[g];
        if (per_group[g].empty() || (marks_only && !m::is_step_mark(name))) continue;
        StepGroupStats row;
        row.group = name;
        row.steps = per_group[g].size();
        const m::Described d = m::describe(std::move(per_group[g]));
        row.mean_us = d.mean;
        row.min_us = d.min;
        row.max_us = d.max;
        row.p50_us = d.p50;
        row.p95_us = d.p95;
        row.p99_us = d.p99;
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const StepGroupStats& a, const StepGroupStats& b) { return a.group < b.group; });
    return rows;
}

// Per step, the slowest node against the others, and the steps whose time is an outlier.
void find_stragglers(const JobSteps& job, StepAnalysis& a) {
    std::map<std::int64_t, std::vector<std::pair<std::string_view, m::StepSpan>>> by_step;
    for (const auto& [k, s] : job.node_spans) by_step[k.step].emplace_back(job.nodes.names()[k.group], s);
    std::vector<double> durations;
    for (auto& [step, nodes] : by_step) {
        std::sort(nodes.begin(), nodes.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        StepStraggler st;
        st.step = step;
        st.nodes = nodes.size();
        m::StepSpan whole = nodes.front().second;
        std::size_t slowest = 0;
        std::vector<double> times;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            whole.widen(nodes[i].second.start, nodes[i].second.end);
            times.push_back(span_us(nodes[i].second));
            if (times[i] > times[slowest]) slowest = i;
        }
        const std::vector<double> others = m::medians_of_others(times);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            StepNodeTime t{std::string(nodes[i].first), times[i], std::nullopt};
            if (!others.empty()) t.median_of_others_us = others[i];
            st.by_node.push_back(std::move(t));
        }
        st.duration_us = span_us(whole);
        st.slowest_node = st.by_node[slowest].node;
        st.slowest_us = times[slowest];
        st.median_of_others_us = st.by_node[slowest].median_of_others_us;
        durations.push_back(st.duration_us);
        a.steps.push_back(std::move(st));
    }
    if (durations.empty()) return;
    a.step_median_us = m::median_of(durations);
    a.step_mad_us = m::median_absolute_deviation(durations, a.step_median_us);
    for (StepStraggler& st : a.steps) st.outlier = st.duration_us > a.step_median_us + a.outlier_k * a.step_mad_us;
}

// Reads every file on the merge's reader threads and folds what each gives into one JobSteps.
// Sets the reading's counts and notes in `a` (a second reading replaces the first's).
JobSteps read_job(const std::vector<m::TraceFile>& files, const std::optional<m::TimeRange>& range, unsigned threads,
                  m::LooseBudget* budget, const m::StepFinder* finder, std::map<std::string, std::string>& skipped,
                  StepAnalysis& a) {
    const std::vector<std::size_t> order = m::starting_order(files);
    // Each worker fills its file's slot; the slot is read here only after the file's `done`.
    std::vector<m::FileSteps> of_file(files.size());
    const auto read_file = [&](std::size_t k, m::FileReaders::Outbox&) {
        const std::size_t i = order[k];
        m::StepEventSink sink(of_file[i], range, budget, finder);
        m::FileMessage done;
        done.error = m::read_trace_file(
            files[i], sink, [&] { of_file[i].clear(); }, done.outcome);
        return done;
    };
    JobSteps job;
    std::vector<std::vector<std::string>> notes_of(files.size());
    a.events_read = a.events_dropped = a.files_read = 0;
    {
        m::FileReaders readers(files.size(), threads, read_file);
        for (std::size_t taken = 0; taken < files.size(); ++taken) {
            const std::size_t i = order[readers.next_file()];
            m::FileMessage msg = readers.next();
            while (msg.kind != m::FileMessage::Kind::done) msg = readers.next();
            if (msg.error) {
                skipped[files[i].path] = *msg.error;
                of_file[i].clear();
                continue;
            }
            job.add(of_file[i], files[i].node_id);
            a.events_read += msg.outcome.events;
            a.events_dropped += msg.outcome.dropped;
            for (const auto& n : msg.outcome.notes) notes_of[i].push_back(files[i].path + ": " + n);
            ++a.files_read;
        }
    }
    a.notes.clear();
    for (auto& notes : notes_of)
        for (auto& n : notes) a.notes.push_back(std::move(n));
    return job;
}

}  // namespace

StepAnalysis analyze_steps(const std::string& path, const StepRequest& request) {
    StepAnalysis a;
    a.outlier_k = request.outlier_k;
    m::check_range_request(request.range, request.unit);
    m::Discovery found;
    try {
        found = m::discover_trace_files(path, request.suffixes);
    } catch (const std::runtime_error& e) {
        throw MergeError(e.what());
    }
    std::map<std::string, std::string> skipped;  // path -> reason, one message per input
    for (const auto& p : found.problems) skipped.emplace(p.path, p.reason);
    const std::optional<m::TimeRange> range = m::resolve_range(path, request.range, request.unit, skipped);
    const std::vector<m::TraceFile> files =
        range ? m::select_for_range(found.files, range->first, range->second) : found.files;

    const unsigned threads = request.reader_threads ? request.reader_threads : m::default_reader_threads();
    // One reading keeps the events without step_num until every file's steps are known; when
    // there are too many to keep, a second reading puts each in its step as it goes.
    m::LooseBudget budget(request.memory_budget / sizeof(JobSteps::Loose));
    JobSteps job = read_job(files, range, threads, &budget, nullptr, skipped, a);
    if (budget.exceeded()) {
        const m::StepFinder finder(job.step_marks);
        job = JobSteps();  // the first reading's memory goes before the second takes its own
        job = read_job(files, range, threads, nullptr, &finder, skipped, a);
        a.readings = 2;
    }
    for (auto& [p, reason] : skipped) a.skipped.push_back({p, reason});
    for (const auto& d : found.duplicates) a.notes.push_back(d.path + ": " + d.reason);
    if (range) {
        a.start_us = m::round_half_even(range->first);
        a.end_us = m::round_half_even(range->second);
    }

    const m::StepFinder finder(job.step_marks);
    for (const auto& e : job.loose) {
        const std::optional<std::int64_t> step = finder.step_of(e.start, e.end);
        if (!step) {
            ++job.outside;
            job.outside_metrics.insert(e.metric);
            continue;
        }
        const m::StepSpan s{e.start, e.end};
        JobSteps::widen(job.metric_spans, {*step, e.metric}, s);
        JobSteps::widen(job.phase_spans, {*step, e.phase}, s);
        JobSteps::widen(job.node_spans, {*step, e.node}, s);
    }
    a.events_outside_steps = job.outside;
    std::set<std::string> outside_names;
    for (std::uint32_t id : job.outside_metrics) outside_names.insert(job.metrics.names()[id]);
    a.names_outside_steps.assign(outside_names.begin(), outside_names.end());

    a.training_phase = describe_groups(job.metric_spans, job.metrics, true);
    a.framework_metric = describe_groups(job.metric_spans, job.metrics, false);
    a.process = describe_groups(job.phase_spans, job.phases, false);
    a.node = describe_groups(job.node_spans, job.nodes, false);
    find_stragglers(job, a);
    return a;
}

}  // namespace ringprof
