#include "system_stats/training_phases.hpp"

#include <algorithm>
#include <stdexcept>

#include "merge/trace_files.hpp"
#include "merge/trace_selection.hpp"
#include "steps/step_events.hpp"
#include "trace/trace_reader.hpp"

namespace ringprof::detail {

namespace {

class PhaseSink final : public EventSink {
public:
    PhaseSink(FrameworkPhases& out, std::int64_t origin_us) : out_(out), origin_(origin_us) {}
    void on_event(const ReadEvent& e) override {
        ++out_.events;
        const TraceNumber end = add(e.start, e.dur);
        const long double end_rel = end.exact() - origin_;
        if (!out_.max_end_us || end_rel > *out_.max_end_us) {
            out_.max_end_us = end_rel;
            out_.max_end_is_float = end.is_float;
        }
        if (is_step_mark(e.phase) &&
            std::find(out_.phases.begin(), out_.phases.end(), e.phase) == out_.phases.end())
            out_.phases.emplace_back(e.phase);
        const std::string_view metric = metric_name(e, scratch_);
        if (!is_step_mark(metric)) return;
        PhaseEvent p;
        p.metric = std::string(metric);
        p.start_us = e.start.exact() - origin_;
        p.end_us = end_rel;
        p.is_float = e.start.is_float || end.is_float;
        p.step = e.has_step ? e.step : -1;
        out_.step_events.push_back(std::move(p));
    }

private:
    FrameworkPhases& out_;
    long double origin_;
    std::string scratch_;
};

}  // namespace

FrameworkPhases read_framework_phases(const std::string& path, std::int64_t origin_us) {
    FrameworkPhases f;
    const Discovery found = discover_trace_files(path, {});
    for (const FileProblem& p : found.problems) f.notes.push_back(p.path + ": " + p.reason);
    for (const TraceFile& file : found.files) {
        FrameworkPhases of_file;  // a file left out whole, or read again, gives nothing of its first reading
        PhaseSink sink(of_file, origin_us);
        ReadOutcome outcome;
        const auto error = read_trace_file(file, sink, [&] { of_file = FrameworkPhases(); }, outcome);
        if (error) {
            f.notes.push_back(file.path + ": " + *error);
            continue;
        }
        for (const std::string& n : outcome.notes) f.notes.push_back(file.path + ": " + n);
        f.events += of_file.events;
        for (std::string& p : of_file.phases)
            if (std::find(f.phases.begin(), f.phases.end(), p) == f.phases.end()) f.phases.push_back(std::move(p));
        for (PhaseEvent& e : of_file.step_events) {
            e.node = file.node_id;
            f.step_events.push_back(std::move(e));
        }
        if (of_file.max_end_us && (!f.max_end_us || *of_file.max_end_us > *f.max_end_us)) {
            f.max_end_us = of_file.max_end_us;
            f.max_end_is_float = of_file.max_end_is_float;
        }
    }
    return f;
}

std::vector<PhaseInterval> training_phase_intervals(const FrameworkPhases& f, long double sys_min_us,
                                                    long double sys_max_us) {
    std::vector<PhaseInterval> rows;
    const auto is_phase = [&](const std::string& m) {
        return std::find(f.phases.begin(), f.phases.end(), m) != f.phases.end();
    };
    for (const PhaseEvent& e : f.step_events) {
        if (!is_phase(e.metric)) continue;
        // Several phases: a run of one phase's events is one interval (smdebug groups on
        // framework_metric != shift()); one phase: every event is an interval of its own.
        if (f.phases.size() > 1 && !rows.empty() && rows.back().phase == e.metric) {
            rows.back().start_us = std::min(rows.back().start_us, e.start_us);
            rows.back().end_us = std::max(rows.back().end_us, e.end_us);
        } else {
            rows.push_back({e.start_us, e.end_us, e.metric});
        }
    }
    if (rows.empty()) return rows;
    std::vector<PhaseInterval> out;
    out.push_back({sys_min_us, rows.front().start_us - 1, "Before " + rows.front().phase});
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out.push_back(rows[i]);
        if (i + 1 == rows.size()) break;
        const std::string& a = std::min(rows[i].phase, rows[i + 1].phase);
        const std::string& b = std::max(rows[i].phase, rows[i + 1].phase);
        out.push_back({rows[i].end_us + 1, rows[i + 1].start_us - 1, "Between " + a + " and " + b});
    }
    out.push_back({rows.back().end_us + 1, sys_max_us, "After " + rows.back().phase});
    return out;
}

const std::string* phase_at(const std::vector<PhaseInterval>& intervals, long double ts_us) {
    const std::string* phase = nullptr;
    for (const PhaseInterval& i : intervals)
        if (i.start_us <= ts_us && ts_us <= i.end_us) phase = &i.phase;
    return phase;
}

}  // namespace ringprof::detail
