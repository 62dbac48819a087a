// The report page: fixed assets (html_assets.hpp) around the profile as JSON. The trees go in
// column arrays in preorder (a parent always before its children), which keeps a 10,000-node
// page small and lets the script rebuild the tree in one pass.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "flame/html_assets.hpp"
#include "flame/markup_text.hpp"
#include "json/json_text.hpp"
#include "ringprof/flame.hpp"
#include "ringprof/version.hpp"

namespace ringprof {

namespace {

// The head stays here, with the code: its Content-Security-Policy allows exactly what this file
// inlines (one style sheet, two scripts, no request to anywhere).
constexpr std::string_view kPageHead = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>)PAGE";

class Names {
public:
    std::size_t id(const std::string& name) {
        const auto [it, inserted] = ids_.emplace(name, list_.size());
        if (inserted) list_.push_back(&it->first);
        return it->second;
    }
    void append_json(std::string& out) const {
        out += '[';
        for (std::size_t i = 0; i < list_.size(); ++i) {
            if (i) out += ',';
            detail::append_json_string(out, *list_[i]);
        }
        out += ']';
    }

private:
    std::unordered_map<std::string, std::size_t> ids_;
    std::vector<const std::string*> list_;  // node-stable: unordered_map keys never move
};

struct Columns {
    std::string n, p, t, c, f;
};

void number(std::string& out, double v) { detail::append_python_float(out, std::isfinite(v) && v > 0.0 ? v : 0.0); }

void flatten(const TimerNode& node, long parent, long& next, Names& names, Columns& cols) {
    const long me = next++;
    const char* sep = me == 0 ? "" : ",";
    cols.n += sep;
    cols.n += std::to_string(names.id(node.name));
    cols.p += sep;
    cols.p += std::to_string(parent);
    cols.t += sep;
    number(cols.t, node.total);
    cols.c += sep;
    cols.c += std::to_string(node.count);
    cols.f += sep;
    cols.f += node.is_parallel ? '1' : '0';
    for (const TimerNode& c : node.children) flatten(c, me, next, names, cols);
}

void append_view(std::string& out, const std::string& label, const std::string& about, std::uint64_t dropped,
                 const TimerNode& root, Names& names) {
    Columns cols;
    long next = 0;
    flatten(root, -1, next, names, cols);
    out += "{\"label\":";
    detail::append_json_string(out, label);
    out += ",\"detail\":";
    detail::append_json_string(out, about);
    out += ",\"dropped\":" + std::to_string(dropped);
    out += ",\"n\":[" + cols.n + "],\"p\":[" + cols.p + "],\"t\":[" + cols.t + "],\"c\":[" + cols.c + "],\"f\":[" +
           cols.f + "]}";
}

// Lanes as column arrays too; times are integer nanoseconds from the timeline's start.
void append_timeline(std::string& out, const FlameTimeline& tl, Names& names) {
    std::vector<std::size_t> ids;
    ids.reserve(tl.names.size());
    for (const std::string& n : tl.names) ids.push_back(names.id(n));
    out += "{\"duration\":" + std::to_string(tl.duration_ns) + ",\"seen\":" + std::to_string(tl.spans_seen);
    out += ",\"note\":";
    detail::append_json_string(out, tl.note);
    out += ",\"steps\":[";
    for (std::size_t i = 0; i < tl.steps.size(); ++i) {
        const FlameStep& st = tl.steps[i];
        out += (i ? ",[" : "[") + std::to_string(st.step) + ',' + std::to_string(st.start_ns) + ',' +
               std::to_string(st.end_ns) + ']';
    }
    out += "],\"lanes\":[";
    for (std::size_t l = 0; l < tl.lanes.size(); ++l) {
        const FlameLane& lane = tl.lanes[l];
        Columns cols;
        for (std::size_t i = 0; i < lane.spans.size(); ++i) {
            const FlameSpan& sp = lane.spans[i];
            const char* sep = i ? "," : "";
            cols.t += sep;
            cols.t += std::to_string(sp.start_ns);
            cols.c += sep;
            cols.c += std::to_string(sp.dur_ns);
            cols.n += sep;
            cols.n += std::to_string(sp.name < ids.size() ? ids[sp.name] : names.id("?"));
            cols.p += sep;
            cols.p += std::to_string(sp.depth);
        }
        out += l ? ",{\"label\":" : "{\"label\":";
        detail::append_json_string(out, lane.label);
        out += ",\"s\":[" + cols.t + "],\"d\":[" + cols.c + "],\"n\":[" + cols.n + "],\"k\":[" + cols.p + "]}";
    }
    // Utilization lanes: sample times (ns from the start) and percents, drawn as a heatmap.
    out += "],\"util\":[";
    for (std::size_t l = 0; l < tl.utilization.size(); ++l) {
        const FlameUtilization& u = tl.utilization[l];
        out += l ? ",{\"label\":" : "{\"label\":";
        detail::append_json_string(out, u.label);
        out += ",\"t\":[";
        for (std::size_t i = 0; i < u.t_ns.size(); ++i) out += (i ? "," : "") + std::to_string(u.t_ns[i]);
        out += "],\"v\":[";
        for (std::size_t i = 0; i < u.value.size(); ++i) {
            if (i) out += ',';
            detail::append_python_float(out, std::isfinite(u.value[i]) ? u.value[i] : 0.0);
        }
        out += "]}";
    }
    out += "],\"findings\":[";
    for (std::size_t k = 0; k < tl.findings.size(); ++k) {
        const FlameFinding& f = tl.findings[k];
        out += k ? ",{\"rule\":" : "{\"rule\":";
        detail::append_json_string(out, f.rule);
        out += ",\"node\":";
        detail::append_json_string(out, f.node);
        out += ",\"device\":";
        detail::append_json_string(out, f.device);
        out += ",\"steps\":";
        detail::append_json_string(out, f.steps);
        out += ",\"what\":";
        detail::append_json_string(out, f.what);
        out += ",\"start\":" + std::to_string(f.start_ns) + ",\"end\":" + std::to_string(f.end_ns) + "}";
    }
    out += "]}";
}

// The steps view: the nodes (sorted), then per step its number, duration, the index of the node
// to mark as the straggler (-1: none, as when the slowest is no slower than the others' median),
// whether the step is an outlier, and per node its time and the median of the other nodes' times
// (null where the node has no events in the step, or is alone in it). Microseconds.
void append_node_steps(std::string& out, const std::vector<StepStraggler>& steps) {
    std::vector<std::string> nodes;
    for (const StepStraggler& st : steps)
        for (const StepNodeTime& t : st.by_node) nodes.push_back(t.node);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    const auto index_of = [&](const std::string& node) {
        return static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), node) - nodes.begin());
    };
    const auto optional_number = [&](const std::optional<double>& v) {
        if (v)
            detail::append_python_float(out, *v);
        else
            out += "null";
    };
    out += "{\"nodes\":[";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (i) out += ',';
        detail::append_json_string(out, nodes[i]);
    }
    out += "],\"steps\":[";
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const StepStraggler& st = steps[s];
        std::vector<std::optional<double>> us(nodes.size()), others(nodes.size());
        for (const StepNodeTime& t : st.by_node) {
            us[index_of(t.node)] = t.us;
            others[index_of(t.node)] = t.median_of_others_us;
        }
        const bool straggler = st.median_of_others_us && st.slowest_us > *st.median_of_others_us;
        out += s ? ",{\"step\":" : "{\"step\":";
        out += std::to_string(st.step) + ",\"duration\":";
        detail::append_python_float(out, st.duration_us);
        out += ",\"slowest\":";
        out += straggler ? std::to_string(index_of(st.slowest_node)) : "-1";
        out += st.outlier ? ",\"outlier\":true,\"us\":[" : ",\"outlier\":false,\"us\":[";
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (i) out += ',';
            optional_number(us[i]);
        }
        out += "],\"others\":[";
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (i) out += ',';
            optional_number(others[i]);
        }
        out += "]}";
    }
    out += "]}";
}

// Inside <script> only "</script" or "<!--" could end or confuse the element; escaping every
// '<' (it can only occur inside JSON strings) rules both out.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (char c : json) {
        if (c == '<')
            out += "\\u003c";
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string render_html(const FlameProfile& profile) {
    Names names;
    std::string views = "[";
    append_view(views, profile.threads.empty() ? "Whole process" : "All threads (merged)", "", profile.dropped,
                profile.merged, names);
    for (const FlameThread& t : profile.threads) {
        views += ',';
        append_view(views, t.label, t.detail, t.dropped, t.tree, names);
    }
    views += ']';
    std::string timeline = "null";
    if (!profile.timeline.lanes.empty()) {
        timeline.clear();
        append_timeline(timeline, profile.timeline, names);
    }

    std::string node_steps = "null";
    if (!profile.node_steps.empty()) {
        node_steps.clear();
        append_node_steps(node_steps, profile.node_steps);
    }

    std::string data = "{\"title\":";
    detail::append_json_string(data, profile.title);
    data += ",\"generator\":\"ringprof " RINGPROF_VERSION_STRING "\",\"dropped\":" + std::to_string(profile.dropped);
    data += ",\"names\":";
    names.append_json(data);
    data += ",\"threads\":" + std::to_string(profile.threads.size());
    data += ",\"views\":" + views + ",\"timeline\":" + timeline + ",\"steps\":" + node_steps + "}";

    std::string out;
    out.reserve(data.size() + 32 * 1024);
    out += kPageHead;
    detail::append_markup_text(
        out, profile.title.empty() ? std::string("ringprof flame graph") : profile.title + " - flame graph",
        detail::Markup::Html);
    out += "</title>\n<style>\n";
    out += detail::flame_page_css();
    out += "</style>\n</head>\n";
    out += detail::flame_page_body();
    out += "<script type=\"application/json\" id=\"flame-data\">";
    out += script_safe(data);
    out += "</script>\n<script>\n";
    out += detail::flame_page_js();
    out += "</script>\n</body>\n</html>\n";
    return out;
}

}  // namespace ringprof
