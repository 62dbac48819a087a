#include "steps/step_events.hpp"

#include "steps/step_finder.hpp"

#include <simdjson.h>

namespace ringprof::detail {

std::uint32_t NameTable::id(std::string_view name) {
    const auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(names_.back(), id);
    return id;
}

namespace {

// args.layer_name or args.name from the args' JSON text (the reader hands args on as text).
// Almost no event has either, so the text is parsed only when it mentions one.
bool name_from_args(std::string_view args, std::string& out) {
    if (args.find("name\"") == std::string_view::npos) return false;
    thread_local simdjson::ondemand::parser parser;
    const simdjson::padded_string padded(args);
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    if (parser.iterate(padded).get(doc) || doc.get_object().get(obj)) return false;
    bool found = false;
    for (auto field : obj) {
        std::string_view key;
        simdjson::ondemand::value v;
        if (field.unescaped_key().get(key) || field.value().get(v)) return found;
        const bool layer = key == "layer_name";
        if (!layer && (key != "name" || found)) continue;
        std::string_view text;
        simdjson::ondemand::json_type type;
        if (v.type().get(type)) return found;
        if (type == simdjson::ondemand::json_type::string) {
            if (v.get_string().get(text)) return found;
        } else {
            text = v.raw_json_token();
            while (!text.empty() &&
                   (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r'))
                text.remove_suffix(1);
        }
        out.assign(text);
        found = true;
        if (layer) return true;  // layer_name wins over name wherever it stands
    }
    return found;
}

}  // namespace

std::string_view metric_name(const ReadEvent& e, std::string& scratch) {
    if (!e.args_json.empty() && name_from_args(e.args_json, scratch)) return scratch;
    return e.name;
}

void StepEventSink::add_to_step(std::int64_t step, std::uint32_t metric, std::uint32_t phase, TraceNumber start,
                                TraceNumber end) {
    auto widen = [&](auto& map, auto key) {
        const auto [it, fresh] = map.try_emplace(key, StepSpan{start, end});
        if (!fresh) it->second.widen(start, end);
    };
    widen(out_.metric_spans, StepKey{step, metric});
    widen(out_.phase_spans, StepKey{step, phase});
    widen(out_.node_spans, step);
}

void StepEventSink::on_event(const ReadEvent& e) {
    const TraceNumber end = add(e.start, e.dur);
    if (range_ && (compare(end, range_->first) < 0 || compare(range_->second, e.start) < 0)) return;
    const std::string_view metric_text = metric_name(e, scratch_);
    const std::uint32_t metric = out_.metrics.id(metric_text);
    const std::uint32_t phase = out_.phases.id(e.phase);
    if (!e.in_step()) {
        if (finder_) {
            const std::optional<std::int64_t> step = finder_->step_of(e.start, end);
            if (step) {
                add_to_step(*step, metric, phase, e.start, end);
            } else {
                ++out_.outside;
                out_.outside_metrics.insert(metric);
            }
        } else if (budget_->take()) {
            out_.loose.push_back({e.start, end, metric, phase});
        }
        return;
    }
    add_to_step(e.step, metric, phase, e.start, end);
    if (is_step_mark(metric_text)) {
        const auto [it, fresh] = out_.step_marks.try_emplace(e.step, StepSpan{e.start, end});
        if (!fresh) it->second.widen(e.start, end);
    }
}

}  // namespace ringprof::detail
