// End to end: the report opened in headless Chromium, driven like a user over the DevTools
// protocol (real mouse events and typing), with screenshots kept under the build directory.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

#include "cdp_browser.hpp"
#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"

namespace {

struct DrawnFrame {
    std::string name, path, kind;
    double x, y, w, h;
    bool match;
};

std::string artifacts_dir() { return std::string(RINGPROF_TEST_BINARY_DIR) + "/flame_artifacts"; }

class FlameBrowser : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const char* skip = std::getenv("RINGPROF_SKIP_BROWSER_TESTS");
        skip_ = skip != nullptr && std::string(skip) == "1";
        if (skip_) return;
        chromium_ = flame_test::CdpBrowser::find_chromium();
        if (chromium_.empty()) return;
        try {
            browser_ = std::make_unique<flame_test::CdpBrowser>(chromium_, artifacts_dir(), 1280, 820);
        } catch (const std::exception& e) {
            start_error_ = e.what();
        }
    }
    static void TearDownTestSuite() { browser_.reset(); }

    void SetUp() override {
        if (skip_) GTEST_SKIP() << "RINGPROF_SKIP_BROWSER_TESTS=1";
        ASSERT_FALSE(chromium_.empty())
            << "headless Chromium is needed for this test and was not found: install it (apt-get install "
               "chromium), point RINGPROF_CHROMIUM at it, or set RINGPROF_SKIP_BROWSER_TESTS=1 to skip";
        ASSERT_TRUE(browser_) << "could not start " << chromium_ << ": " << start_error_;
    }

    static flame_test::CdpBrowser& browser() { return *browser_; }

    static std::string open(const std::string& name, const ringprof::FlameProfile& profile) {
        std::filesystem::create_directories(artifacts_dir());
        const std::string path = artifacts_dir() + "/" + name;
        flame_test::write_text(path, ringprof::render_html(profile));
        browser().navigate("file://" + path);
        return path;
    }

    static std::vector<DrawnFrame> frames() {
        const std::string json = browser().evaluate("JSON.stringify(window.ringprofFlame.frames())");
        simdjson::dom::parser parser;
        std::vector<DrawnFrame> out;
        for (simdjson::dom::element f : parser.parse(json).get_array()) {
            out.push_back({std::string(std::string_view(f["name"])), std::string(std::string_view(f["path"])),
                           std::string(std::string_view(f["kind"])), double(f["x"]), double(f["y"]), double(f["w"]),
                           double(f["h"]), bool(f["match"])});
        }
        return out;
    }

    // The viewer's state once pending animation frames have run.
    static std::string state(const char* field) {
        const std::string json = browser().evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => "
            "r(JSON.stringify(window.ringprofFlame.state())))))");
        simdjson::dom::parser parser;
        const simdjson::dom::element s = parser.parse(json);
        return simdjson::to_string(s[field]);
    }

    static const DrawnFrame& find(const std::vector<DrawnFrame>& fs, const std::string& path) {
        for (const DrawnFrame& f : fs) {
            if (f.path == path) return f;
        }
        throw std::runtime_error("frame not drawn: " + path);
    }

    static void save_screenshot(const std::string& name) {
        const std::string png = browser().screenshot_png();
        ASSERT_GT(png.size(), 8u);
        EXPECT_EQ(png.substr(1, 3), "PNG");
        flame_test::write_text(artifacts_dir() + "/" + name, png);
        std::printf("screenshot: %s/%s\n", artifacts_dir().c_str(), name.c_str());
    }

    static void expect_no_page_errors() {
        for (const std::string& e : browser().page_errors()) ADD_FAILURE() << "page error: " << e;
    }

    static std::set<std::string> tree_paths(const ringprof::TimerNode& root) {
        std::set<std::string> out;
        flame_test::for_each_path(root, [&](const std::string& p, const ringprof::TimerNode&, const ringprof::TimerNode*) {
            out.insert(p);
        });
        return out;
    }

    static inline bool skip_ = false;
    static inline std::string chromium_, start_error_;
    static inline std::unique_ptr<flame_test::CdpBrowser> browser_;
};

ringprof::FlameProfile training_profile() {
    ringprof::FlameProfile p;
    p.title = "training demo";
    p.merged = flame_test::training_tree();
    p.threads.push_back({"main (tid 101)", flame_test::node("root", 10.0, 1, false,
                                                            {flame_test::node("train_step", 8.0, 100, false,
                                                                              {flame_test::node("env_step", 5.0, 400)}),
                                                             flame_test::node("save_model", 1.5, 1)}),
                         0, "tid 101"});
    p.threads.push_back({"env worker (tid 102)",
                         flame_test::node("root", 9.0, 1, false, {flame_test::node("simulate", 2.5, 800)}), 0, "tid 102"});
    return p;
}

TEST_F(FlameBrowser, RendersHoversZoomsAndSearches) {
    const ringprof::FlameProfile profile = training_profile();
    open("training_flame.html", profile);

    std::set<std::string> drawn;
    for (const DrawnFrame& f : frames()) drawn.insert(f.path);
    EXPECT_EQ(drawn, tree_paths(profile.merged));

    // Hover: the tooltip describes the frame under the mouse.
    {
        const DrawnFrame f = find(frames(), "root/train_step/update_policy");
        browser().hover(f.x + f.w / 2, f.y + f.h / 2);
        const std::string tip = state("tip");
        EXPECT_NE(tip.find("update_policy"), std::string::npos) << tip;
        EXPECT_NE(tip.find("Total2.50 s"), std::string::npos) << tip;
        EXPECT_NE(tip.find("Calls100"), std::string::npos) << tip;
        EXPECT_NE(tip.find("% of parent31.3%"), std::string::npos) << tip;
        save_screenshot("flame_e2e_overview.png");
    }
    // A parallel frame drawn scaled into its parent says so.
    {
        const DrawnFrame f = find(frames(), "root/train_step/env_step/workers/worker_root");
        browser().hover(f.x + f.w / 2, f.y + f.h / 2);
        const std::string tip = state("tip");
        EXPECT_NE(tip.find("Parallelyes"), std::string::npos) << tip;
        EXPECT_NE(tip.find("true width"), std::string::npos) << tip;
    }

    // Click to zoom: the frame fills the width, its callers stay above it, the rest goes.
    {
        const std::vector<DrawnFrame> before = frames();
        const DrawnFrame root = find(before, "root");
        const DrawnFrame target = find(before, "root/train_step/env_step");
        browser().click(target.x + target.w / 2, target.y + target.h / 2);
        EXPECT_EQ(state("zoom"), "\"root/train_step/env_step\"");
        const std::vector<DrawnFrame> after = frames();
        const DrawnFrame zoomed = find(after, "root/train_step/env_step");
        EXPECT_EQ(zoomed.kind, "zoom");
        EXPECT_NEAR(zoomed.w, root.w, 0.5);
        EXPECT_EQ(find(after, "root").kind, "ancestor");
        EXPECT_EQ(find(after, "root/train_step").kind, "ancestor");
        for (const DrawnFrame& f : after) EXPECT_EQ(f.path.find("update_policy"), std::string::npos) << f.path;
        save_screenshot("flame_e2e_zoomed.png");

        const DrawnFrame top = find(after, "root");
        browser().click(top.x + 20, top.y + top.h / 2);  // an enclosing frame zooms back out
        EXPECT_EQ(state("zoom"), "\"\"");
        EXPECT_EQ(frames().size(), before.size());
    }

    // Search: typed into the box, the matching frames light up and are counted.
    {
        const std::string box = browser().evaluate(
            "(() => { const r = document.getElementById('search').getBoundingClientRect();"
            " return JSON.stringify([r.left + r.width / 2, r.top + r.height / 2]); })()");
        simdjson::dom::parser parser;
        const simdjson::dom::array xy = parser.parse(box).get_array();
        browser().click(double(xy.at(0)), double(xy.at(1)));
        browser().type("simul");
        std::size_t expected = 0;
        flame_test::for_each_path(profile.merged, [&](const std::string&, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
            expected += n.name.find("simul") != std::string::npos;
        });
        EXPECT_EQ(state("matches"), std::to_string(expected));
        std::size_t lit = 0;
        for (const DrawnFrame& f : frames()) lit += f.match;
        EXPECT_EQ(lit, expected);
        save_screenshot("flame_e2e_search.png");
    }

    // Per-thread view: after the merged and the side-by-side views come the threads.
    {
        browser().evaluate(
            "(() => { const s = document.getElementById('view'); s.value = '3';"
            " s.dispatchEvent(new Event('change')); return ''; })()");
        std::set<std::string> thread_drawn;
        for (const DrawnFrame& f : frames()) thread_drawn.insert(f.path);
        EXPECT_EQ(thread_drawn, tree_paths(profile.threads[1].tree));
        EXPECT_EQ(browser().evaluate("String(document.getElementById('view').options.length)"),
                  std::to_string(2 + profile.threads.size()));
    }
    expect_no_page_errors();
}

// As in ML-Agents' files: a parent of a few milliseconds holding minutes of parallel worker time.
TEST_F(FlameBrowser, SearchFindsWorkHiddenInsideATinyFrame) {
    ringprof::FlameProfile profile;
    profile.title = "tiny parent";
    profile.merged = flame_test::node(
        "root", 100.0, 1, false,
        {flame_test::node("env_step", 100.0, 50, false,
                          {flame_test::node("workers", 0.001, 50, false,
                                            {flame_test::node("worker_root", 90.0, 100, true,
                                                              {flame_test::node("exchange", 80.0, 100, true)})})})});
    open("tiny_parent_flame.html", profile);
    for (const DrawnFrame& f : frames()) EXPECT_EQ(f.path.find("worker_root"), std::string::npos) << f.path;

    browser().evaluate("(window.ringprofFlame.search('exchange'), '')");
    const DrawnFrame hit = find(frames(), "root/env_step/workers/worker_root/exchange");
    EXPECT_TRUE(hit.match);
    EXPECT_GE(hit.w, 2.0);
    browser().click(hit.x + hit.w / 2, hit.y + hit.h / 2);
    EXPECT_EQ(state("zoom"), "\"root/env_step/workers/worker_root/exchange\"");
    EXPECT_GT(find(frames(), "root/env_step/workers/worker_root/exchange").w, 500.0);
    expect_no_page_errors();
}

TEST_F(FlameBrowser, StaysResponsiveWithTenThousandNodes) {
    ringprof::FlameProfile profile;
    profile.title = "10,000 generated frames";
    profile.merged = flame_test::generated_tree(10000);
    open("generated_10k_flame.html", profile);

    const double first_render = std::stod(state("renderMs"));
    const std::vector<DrawnFrame> fs = frames();
    EXPECT_GT(fs.size(), 1000u);
    EXPECT_EQ(browser().evaluate("String(document.getElementById('summary').textContent.includes('10,000 frames'))"),
              "true");

    const DrawnFrame* child = nullptr;
    for (const DrawnFrame& f : fs) {
        if (f.path.find('/') != std::string::npos && (child == nullptr || f.w > child->w)) child = &f;
    }
    ASSERT_NE(child, nullptr);
    browser().click(child->x + child->w / 2, child->y + child->h / 2);
    EXPECT_EQ(state("zoom"), "\"" + child->path + "\"");
    const double zoom_render = std::stod(state("renderMs"));
    // A frame of interaction is ~16 ms; allow slow shared machines several.
    EXPECT_LT(first_render, 250.0);
    EXPECT_LT(zoom_render, 250.0);
    std::printf("10k nodes: first render %.1f ms, zoomed render %.1f ms\n", first_render, zoom_render);
    save_screenshot("flame_e2e_10k.png");
    expect_no_page_errors();
}

}  // namespace
