#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"

namespace {

struct SvgFrame {
    std::string name, title;
    double x, y, w;
    std::string fill;
};

std::string unescape(std::string s) {
    const std::pair<const char*, const char*> entities[] = {
        {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
    for (const auto& [from, to] : entities) {
        for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
            s.replace(at, std::strlen(from), to);
        }
    }
    return s;
}

// The value between `before` and the next '"' (or '<' for element text), from `at` on.
std::string field(const std::string& text, std::size_t& at, const std::string& before, char end) {
    const auto start = text.find(before, at);
    if (start == std::string::npos) return {};
    const auto stop = text.find(end, start + before.size());
    at = stop;
    return text.substr(start + before.size(), stop - start - before.size());
}

std::vector<SvgFrame> parse_frames(const std::string& svg) {
    std::vector<SvgFrame> out;
    const std::string open = "<g class=\"f\" data-name=\"";
    for (std::size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at)) {
        const std::size_t end = svg.find("</g>", at);
        const std::string g = svg.substr(at, end - at);
        std::size_t p = 0;
        SvgFrame f;
        f.name = unescape(field(g, p, "data-name=\"", '"'));
        f.title = unescape(field(g, p, "<title>", '<'));
        f.x = std::stod(field(g, p, "<rect x=\"", '"'));
        f.y = std::stod(field(g, p, " y=\"", '"'));
        f.w = std::stod(field(g, p, " width=\"", '"'));
        f.fill = field(g, p, " fill=\"", '"');
        out.push_back(f);
        at = end;
    }
    return out;
}

double layout_span(const ringprof::TimerNode& n) {
    double sum = 0;
    for (const auto& c : n.children) sum += c.total;
    return std::max(sum, n.total);
}

TEST(Svg, FramesHaveTheWidthsAndLevelsOfTheTree) {
    const ringprof::TimerNode tree = flame_test::training_tree();
    ringprof::SvgOptions options;
    options.width = 1000;
    const std::string svg = ringprof::render_svg(tree, options);
    ASSERT_EQ(svg.rfind("<?xml", 0), 0u);
    ASSERT_NE(svg.find("</svg>"), std::string::npos);
    const std::vector<SvgFrame> frames = parse_frames(svg);
    ASSERT_EQ(frames.size(), flame_test::node_count(tree));

    // Frames come in preorder, so walking the tree alongside gives each frame's expected box.
    std::size_t i = 0;
    const double chart = options.width - 20.0;
    std::function<void(const ringprof::TimerNode&, const ringprof::TimerNode*, double, double, double)> check =
        [&](const ringprof::TimerNode& n, const ringprof::TimerNode* parent, double x, double w, double y) {
            const SvgFrame& f = frames.at(i++);
            EXPECT_EQ(f.name, n.name);
            EXPECT_NEAR(f.x, x, 0.01) << n.name;
            EXPECT_NEAR(f.w, w, 0.01) << n.name;
            EXPECT_NEAR(f.y, y, 0.05) << n.name;
            EXPECT_EQ(f.title.rfind(n.name + "\n", 0), 0u) << f.title;
            EXPECT_NE(f.title.find(std::to_string(n.count) + (n.count == 1 ? " call" : " calls")), std::string::npos);
            EXPECT_EQ(f.title.find("parallel:") != std::string::npos, n.is_parallel) << f.title;
            if (parent != nullptr) {
                EXPECT_NE(f.title.find("% of parent"), std::string::npos);
            }
            double cx = x;
            for (const auto& c : n.children) {
                const double cw = w * c.total / layout_span(n);
                check(c, &n, cx, cw, y - options.frame_height);  // root at the bottom
                cx += cw;
            }
        };
    check(tree, nullptr, 10.0, chart, frames.front().y);
    EXPECT_GT(frames.front().y, frames.back().y);
}

// "8.00 s", "250 ms", "1.50 \u00b5s" back to seconds.
double seconds_of(const std::string& text) {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    const std::string unit = text.substr(used + 1);
    const double scale = unit == "s"           ? 1.0
                         : unit == "ms"        ? 1e-3
                         : unit == "\xC2\xB5s" ? 1e-6
                         : unit == "ns"        ? 1e-9
                                               : -1.0;
    EXPECT_GT(scale, 0.0) << "unit of " << text;
    return v * scale;
}

// The numbers of a frame's tooltip: "total T, self S, N calls[, P% of parent]".
struct TitleNumbers {
    double total = -1, self = -1, percent_of_parent = -1;
    long calls = -1;
};

TitleNumbers title_numbers(const std::string& title) {
    TitleNumbers t;
    const std::size_t line = title.find('\n');
    const std::size_t end = title.find('\n', line + 1);
    std::string facts = title.substr(line + 1, end == std::string::npos ? std::string::npos : end - line - 1) + ", ";
    std::vector<std::string> parts;
    for (std::size_t at = 0, comma; (comma = facts.find(", ", at)) != std::string::npos; at = comma + 2) {
        parts.push_back(facts.substr(at, comma - at));
    }
    for (const std::string& p : parts) {
        if (p.rfind("total ", 0) == 0)
            t.total = seconds_of(p.substr(6));
        else if (p.rfind("self ", 0) == 0)
            t.self = seconds_of(p.substr(5));
        else if (p.find(" call") != std::string::npos)
            t.calls = std::stol(p);
        else if (p.find("% of parent") != std::string::npos)
            t.percent_of_parent = std::stod(p);
        else
            ADD_FAILURE() << "unknown part '" << p << "' in " << title;
    }
    return t;
}

TEST(Svg, EveryNumberInATooltipMatchesTheTree) {
    // Reference values from the tree alone: self is what the children leave of the total (never
    // below zero), the percentage is of the parent's total.
    const ringprof::TimerNode tree = flame_test::training_tree();
    const std::string svg = ringprof::render_svg(tree);
    const std::vector<SvgFrame> frames = parse_frames(svg);
    ASSERT_EQ(frames.size(), flame_test::node_count(tree));
    std::size_t i = 0, with_percent = 0;
    flame_test::for_each_path(tree, [&](const std::string& path, const ringprof::TimerNode& n,
                                        const ringprof::TimerNode* parent) {
        const SvgFrame& f = frames.at(i++);
        ASSERT_EQ(f.name, n.name) << path;
        const TitleNumbers t = title_numbers(f.title);
        double children = 0;
        for (const auto& c : n.children) children += c.total;
        const double self = std::max(0.0, n.total - children);
        EXPECT_NEAR(t.total, n.total, n.total * 0.005) << path << ": " << f.title;
        EXPECT_NEAR(t.self, self, self * 0.005) << path << ": " << f.title;
        EXPECT_EQ(t.calls, static_cast<long>(n.count)) << path;
        if (parent == nullptr) {
            EXPECT_LT(t.percent_of_parent, 0.0) << "the root has no parent: " << f.title;
        } else {
            ++with_percent;
            EXPECT_NEAR(t.percent_of_parent, 100.0 * n.total / parent->total, 0.05 + 1e-9) << path << ": " << f.title;
        }
    });
    EXPECT_EQ(with_percent, frames.size() - 1);
    // The legend states the root's total.
    EXPECT_NE(svg.find("Width = total time (root 10.0 s)"), std::string::npos);
}

TEST(Svg, ParallelChildrenAreScaledIntoTheirParentAndSaySo) {
    const ringprof::TimerNode tree = flame_test::training_tree();
    const std::vector<SvgFrame> frames = parse_frames(ringprof::render_svg(tree));
    std::map<std::string, SvgFrame> by_name;
    for (const SvgFrame& f : frames) by_name.emplace(f.name, f);  // first of a repeated name
    const SvgFrame& workers = by_name.at("workers");
    const SvgFrame& worker_root = by_name.at("worker_root");
    EXPECT_NEAR(worker_root.w, workers.w, 0.01);  // 3 s of parallel work inside 1 s
    EXPECT_NE(worker_root.title.find("drawn scaled down"), std::string::npos);
    EXPECT_EQ(workers.title.find("drawn scaled down"), std::string::npos);
    EXPECT_NE(worker_root.fill, workers.fill);
}

TEST(Svg, NamesAreEscapedAndTinyFramesLeftOut) {
    const ringprof::TimerNode tree = flame_test::node(
        "root", 1.0, 1, false, {flame_test::node("a<b>&\"c\"", 0.5, 1), flame_test::node("tiny", 1e-9, 1)});
    const std::string svg = ringprof::render_svg(tree);
    EXPECT_EQ(svg.find("a<b>"), std::string::npos);
    const std::vector<SvgFrame> frames = parse_frames(svg);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[1].name, "a<b>&\"c\"");
}

TEST(Svg, EmptyTreeSaysSo) {
    const std::string svg = ringprof::render_svg(ringprof::TimerNode("root"));
    EXPECT_TRUE(parse_frames(svg).empty());
    EXPECT_NE(svg.find("no time recorded"), std::string::npos);
}

}  // namespace
