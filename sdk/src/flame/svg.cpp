// A static flame graph in the manner of flamegraph.pl: one <g> per frame holding a <title>
// (the browser's tooltip), a <rect> and a label cut to fit. Root at the bottom.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "flame/flame_layout.hpp"
#include "flame/frame_color.hpp"
#include "flame/markup_text.hpp"
#include "ringprof/flame.hpp"
#include "tree/kept_depth.hpp"

namespace ringprof {

namespace {

using detail::format_seconds;

struct Frame {
    const TimerNode* node;
    const TimerNode* parent;
    double x, w;
    int depth;
    bool scaled;  // drawn narrower than its total because parallel siblings exceed the parent
};

void layout(const TimerNode& node, const TimerNode* parent, double x, double w, int depth, bool scaled, double min_px,
            std::vector<Frame>& out) {
    if (w < min_px) return;
    out.push_back({&node, parent, x, w, depth, scaled});
    const double span = detail::layout_span(node);
    if (span <= 0.0) return;
    const bool squeeze = span > node.total;
    double cx = x;
    for (const TimerNode& c : node.children) {
        const double cw = w * c.total / span;
        layout(c, &node, cx, cw, depth + 1, scaled || squeeze, min_px, out);
        cx += cw;
    }
}

void append_xml(std::string& out, std::string_view raw) { detail::append_markup_text(out, raw, detail::Markup::Xml); }

std::string fixed(double v, int decimals) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Cuts at a UTF-8 character boundary so a label never ends in half a character.
std::string fit_label(const std::string& name, double width_px, double char_px) {
    const auto room = static_cast<std::size_t>((width_px - 6.0) / char_px);
    if (room < 3) return {};
    if (name.size() <= room) return name;
    std::size_t cut = room - 2;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    return name.substr(0, cut) + "..";
}

}  // namespace

std::string render_svg(const TimerNode& root, const SvgOptions& options) {
    if (detail::deeper_than_kept(root)) return render_svg(detail::copy_within_kept_depth(root), options);
    const int width = std::max(options.width, 200);
    const int fh = std::max(options.frame_height, 8);
    const double pad = 10.0;
    const double chart_w = width - 2 * pad;
    const double font_px = std::min(12.0, fh - 4.0);
    const double char_px = font_px * 0.6;  // monospace advance

    std::vector<Frame> frames;
    if (root.total > 0.0 || detail::layout_span(root) > 0.0) {
        layout(root, nullptr, pad, chart_w, 0, false, std::max(options.min_frame_px, 0.0), frames);
    }
    int max_depth = 0;
    for (const Frame& f : frames) max_depth = std::max(max_depth, f.depth);

    const int top = 40;
    const int legend_h = 30;
    const int height = top + (max_depth + 1) * fh + legend_h;

    std::string out;
    out.reserve(256 + frames.size() * 300);
    out += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(width) +
           "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
           std::to_string(height) + "\">\n";
    out += "<style>text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:" + fixed(font_px, 0) +
           "px;fill:#222}.t{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:17px}"
           ".l{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:11px;fill:#555}"
           "g.f:hover rect{stroke:#000;stroke-width:0.8}</style>\n";
    out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fbfaf7\"/>\n";
    out += "<text class=\"t\" x=\"" + fixed(width / 2.0, 1) + "\" y=\"26\" text-anchor=\"middle\">";
    append_xml(out, options.title);
    out += "</text>\n";

    for (const Frame& f : frames) {
        const TimerNode& n = *f.node;
        const double y = top + static_cast<double>(max_depth - f.depth) * fh;
        out += "<g class=\"f\" data-name=\"";
        append_xml(out, n.name);
        out += "\"><title>";
        std::string tip = n.name + "\ntotal " + format_seconds(n.total) + ", self " + format_seconds(n.self()) + ", " +
                          std::to_string(n.count) + (n.count == 1 ? " call" : " calls");
        if (f.parent != nullptr && f.parent->total > 0.0) {
            tip += ", " + fixed(100.0 * n.total / f.parent->total, 1) + "% of parent";
        }
        if (n.is_parallel) tip += "\nparallel: ran on several threads or processes";
        if (f.scaled) tip += "\ndrawn scaled down: parallel time here exceeds an enclosing frame";
        append_xml(out, tip);
        out += "</title><rect x=\"" + fixed(f.x, 2) + "\" y=\"" + fixed(y, 1) + "\" width=\"" + fixed(f.w, 3) +
               "\" height=\"" + std::to_string(fh - 1) + "\" rx=\"2\" fill=\"" +
               detail::frame_color(n.name, n.is_parallel) + "\"/>";
        const std::string label = fit_label(n.name, f.w, char_px);
        if (!label.empty()) {
            out += "<text x=\"" + fixed(f.x + 3.0, 2) + "\" y=\"" + fixed(y + fh - 4.5, 1) + "\">";
            append_xml(out, label);
            out += "</text>";
        }
        out += "</g>\n";
    }
    if (frames.empty()) {
        out += "<text class=\"l\" x=\"" + fixed(width / 2.0, 1) + "\" y=\"" + std::to_string(top + fh) +
               "\" text-anchor=\"middle\">no time recorded</text>\n";
    }
    out += "<text class=\"l\" x=\"" + fixed(pad, 1) + "\" y=\"" + std::to_string(height - 10) +
           "\">Width = total time (root " + format_seconds(root.total) +
           "). Blue frames ran in parallel; where children add up to more than their parent they are scaled "
           "to fit. Hover a frame for details.</text>\n";
    out += "</svg>\n";
    return out;
}

}  // namespace ringprof
