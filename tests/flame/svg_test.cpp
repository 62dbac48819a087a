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

// The share is recomputed here from the tree: each node's total over its own parent's total
// (not the root's, not the drawn width), with one decimal as the tooltip prints it.
TEST(Svg, EachTooltipGivesItsShareOfItsOwnParentsTotal) {
    const ringprof::TimerNode tree = flame_test::training_tree();
    const std::vector<SvgFrame> frames = parse_frames(ringprof::render_svg(tree));
    ASSERT_EQ(frames.size(), flame_test::node_count(tree));
    std::size_t i = 0, checked = 0;
    flame_test::for_each_path(tree, [&](const std::string& path, const ringprof::TimerNode& n,
                                        const ringprof::TimerNode* parent) {
        const SvgFrame& f = frames.at(i++);
        const std::size_t at = f.title.find("% of parent");
        if (parent == nullptr) {
            EXPECT_EQ(at, std::string::npos) << f.title;
            return;
        }
        ASSERT_NE(at, std::string::npos) << path;
        const std::size_t from = f.title.rfind(", ", at) + 2;
        const double shown = std::stod(f.title.substr(from, at - from));
        EXPECT_NEAR(shown, 100.0 * n.total / parent->total, 0.05 + 1e-9) << path << ": " << f.title;
        ++checked;
    });
    EXPECT_EQ(checked, flame_test::node_count(tree) - 1);
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
