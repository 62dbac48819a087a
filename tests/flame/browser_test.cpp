// End to end: the report opened in headless Chromium, driven like a user over the DevTools
// protocol (real mouse events and typing), with screenshots kept under the build directory.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <algorithm>
#include <map>
#include <set>

#include "cdp_browser.hpp"
#include "demo_shaped_run.hpp"
#include "flame_test_trees.hpp"
#include "low_gpu_folder.hpp"
#include "ringprof/flame.hpp"
#include "straggler_folder.hpp"
#include "temp_dir.hpp"

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
        // The page is what is under test, not the machine's browser: one that does not start (a
        // machine too loaded to start it within the bound, a broken install) skips, saying why.
        if (!browser_) GTEST_SKIP() << "browser did not start: " << chromium_ << ": " << start_error_;
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
        flame_test::for_each_path(
            root, [&](const std::string& p, const ringprof::TimerNode&, const ringprof::TimerNode*) { out.insert(p); });
        return out;
    }

    // The page's state after pending animation frames, as parsed JSON (kept alive in `parser`).
    static simdjson::dom::element settled(simdjson::dom::parser& parser, const std::string& expr) {
        static thread_local std::string text;
        text = browser().evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(JSON.stringify(" + expr +
            ")))))");
        return parser.parse(text);
    }

    // Every percentage written in `text` ("61.5%", "61.5 %"), as numbers. (Not std::regex: GCC 12
    // warns inside it under ASan.)
    static std::vector<double> percentages(const std::string& text) {
        std::vector<double> out;
        for (std::size_t pct = text.find('%'); pct != std::string::npos; pct = text.find('%', pct + 1)) {
            std::size_t end = pct;
            if (end > 0 && text[end - 1] == ' ') --end;
            std::size_t begin = end;
            while (begin > 0 && (std::isdigit(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '.'))
                --begin;
            if (begin < end) out.push_back(std::stod(text.substr(begin, end - begin)));
        }
        return out;
    }

    static std::string text_of(const std::string& id) {
        return browser().evaluate("document.getElementById('" + id + "').textContent");
    }

    static void set_select(const std::string& id, const std::string& value) {
        browser().evaluate("(() => { const s = document.getElementById('" + id + "'); s.value = '" + value +
                           "'; s.dispatchEvent(new Event('change')); return ''; })()");
    }

    static inline bool skip_ = false;
    static inline std::string chromium_, start_error_;
    static inline std::unique_ptr<flame_test::CdpBrowser> browser_;
};

ringprof::FlameProfile training_profile() {
    ringprof::FlameProfile p;
    p.title = "training demo";
    p.merged = flame_test::training_tree();
    p.threads.push_back(
        {"main (tid 101)",
         flame_test::node("root", 10.0, 1, false,
                          {flame_test::node("train_step", 8.0, 100, false, {flame_test::node("env_step", 5.0, 400)}),
                           flame_test::node("save_model", 1.5, 1)}),
         0, "tid 101"});
    p.threads.push_back({"env worker (tid 102)",
                         flame_test::node("root", 9.0, 1, false, {flame_test::node("simulate", 2.5, 800)}), 0,
                         "tid 102"});
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
        flame_test::for_each_path(profile.merged,
                                  [&](const std::string&, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
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

// What the page should show, computed from the trees alone: per name the self time (what a
// node's children leave of its total, never below zero) and calls summed over every node but
// the root, and the base of the percentages, the sum of those self times.
struct SelfTable {
    std::map<std::string, std::pair<double, std::uint64_t>> rows;  // name -> (self, calls)
    double base = 0;
};

void add_tree(SelfTable& t, const ringprof::TimerNode& root) {
    flame_test::for_each_path(root,
                              [&](const std::string&, const ringprof::TimerNode& n, const ringprof::TimerNode* parent) {
                                  if (parent == nullptr) return;
                                  double children = 0;
                                  for (const auto& c : n.children) children += c.total;
                                  const double self = std::max(0.0, n.total - children);
                                  t.rows[n.name].first += self;
                                  t.rows[n.name].second += n.count;
                                  t.base += self;
                              });
}

// "1.50 s", "250 ms", "12.0 \u00b5s" back to seconds; "61.5%" to 61.5; "1,234" to 1234.
double page_seconds(const std::string& text) {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    const std::string unit = text.substr(used + 1);
    return v * (unit == "s" ? 1.0 : unit == "ms" ? 1e-3 : unit == "\xC2\xB5s" ? 1e-6 : 1e-9);
}
double page_percent(const std::string& text) { return std::stod(text); }
std::uint64_t page_int(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return std::stoull(text);
}

TEST_F(FlameBrowser, EveryNumberInTheTableAndTheTooltipsMatchesTheTrees) {
    const ringprof::FlameProfile profile = training_profile();
    open("numbers_flame.html", profile);
    SelfTable threads;
    for (const auto& t : profile.threads) add_tree(threads, t.tree);
    SelfTable merged;
    add_tree(merged, profile.merged);
    // The merged and side-by-side views count each thread's own time when the threads hold at
    // least what the merged tree does (a waiting parent keeps its time there).
    ASSERT_GE(threads.base, merged.base) << "the profile must exercise the threads' base";
    std::vector<SelfTable> expected{threads, threads};
    for (const auto& t : profile.threads) {
        expected.emplace_back();
        add_tree(expected.back(), t.tree);
    }
    for (std::size_t v = 0; v < expected.size(); ++v) {
        SCOPED_TRACE("view " + std::to_string(v));
        set_select("view", std::to_string(v));
        const std::string json = browser().evaluate(
            "JSON.stringify([...document.querySelectorAll('#top-self tr')].map(tr => [...tr.children].map(td => "
            "td.textContent)))");
        simdjson::dom::parser parser;
        std::size_t shown = 0, positive = 0;
        double previous = 1e300;
        for (simdjson::dom::element row : parser.parse(json).get_array()) {
            const std::string name(std::string_view(row.at(0)));
            const auto it = expected[v].rows.find(name);
            ASSERT_NE(it, expected[v].rows.end()) << name;
            const double self = page_seconds(std::string(std::string_view(row.at(1))));
            EXPECT_NEAR(self, it->second.first, it->second.first * 0.005) << name;
            EXPECT_LE(self, previous) << "rows by self time, largest first";
            previous = self;
            EXPECT_NEAR(page_percent(std::string(std::string_view(row.at(2)))),
                        100.0 * it->second.first / expected[v].base, 0.051)
                << name;
            EXPECT_EQ(page_int(std::string(std::string_view(row.at(3)))), it->second.second) << name;
            ++shown;
        }
        for (const auto& [name, r] : expected[v].rows) positive += r.first > 0;
        EXPECT_EQ(shown, std::min<std::size_t>(positive, 20)) << "every name with self time, up to 20";
    }

    // Tooltips of the merged view: totals, self, calls and both percentages, frame by frame.
    set_select("view", "0");
    std::map<std::string, std::pair<const ringprof::TimerNode*, const ringprof::TimerNode*>> nodes;
    flame_test::for_each_path(
        profile.merged, [&](const std::string& path, const ringprof::TimerNode& n, const ringprof::TimerNode* parent) {
            nodes[path] = {&n, parent};
        });
    std::size_t checked = 0;
    for (const DrawnFrame& f : frames()) {
        if (f.w < 3 || f.path == "root") continue;
        SCOPED_TRACE(f.path);
        const auto [n, parent] = nodes.at(f.path);
        browser().hover(f.x + f.w / 2, f.y + f.h / 2);
        const std::string json = browser().evaluate(
            "new Promise(r => requestAnimationFrame(() => r(JSON.stringify([...document.querySelectorAll('#tip tr')]"
            ".map(tr => [tr.children[0].textContent, tr.children[1].textContent])))))");
        simdjson::dom::parser parser;
        std::map<std::string, std::string> tip;
        for (simdjson::dom::element row : parser.parse(json).get_array()) {
            tip[std::string(std::string_view(row.at(0)))] = std::string(std::string_view(row.at(1)));
        }
        double children = 0;
        for (const auto& c : n->children) children += c.total;
        const double self = std::max(0.0, n->total - children);
        EXPECT_NEAR(page_seconds(tip.at("Total")), n->total, n->total * 0.005);
        EXPECT_NEAR(page_seconds(tip.at("Self")), self, self * 0.005 + 1e-12);
        EXPECT_EQ(page_int(tip.at("Calls")), n->count);
        EXPECT_NEAR(page_percent(tip.at("% of thread time")), 100.0 * n->total / threads.base, 0.051);
        if (parent->name != "root" && n->total <= parent->total) {
            EXPECT_NEAR(page_percent(tip.at("% of parent")), 100.0 * n->total / parent->total, 0.051);
        } else {
            EXPECT_EQ(tip.count("% of parent"), 0u);
        }
        ++checked;
    }
    EXPECT_GE(checked, 6u);
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

TEST_F(FlameBrowser, TenThousandNodesZoomAndLayOutOnlyFramesWideEnoughToSee) {
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
    // What keeps a draw fast, as a count rather than a time (this machine is shared; speed is
    // for benchmarks): frames too narrow to see are never laid out.
    std::size_t too_narrow = 0;
    for (const DrawnFrame& f : frames()) too_narrow += f.kind == "frame" && f.w < 0.35;
    EXPECT_EQ(too_narrow, 0u);
    std::printf("10k nodes: first render %.1f ms, zoomed render %.1f ms (not checked)\n", first_render, zoom_render);
    save_screenshot("flame_e2e_10k.png");
    expect_no_page_errors();
}

// The demo's shape, from a real session: a trainer and four workers that exit before the end.
class FlameBrowserDemo : public FlameBrowser {
protected:
    static void SetUpTestSuite() {
        const char* skip = std::getenv("RINGPROF_SKIP_BROWSER_TESTS");
        if ((skip == nullptr || std::string(skip) != "1") && !flame_test::CdpBrowser::find_chromium().empty()) {
            run_ = flame_test::run_demo_shaped("browser_demo_shaped");  // forked before the browser starts
        }
        FlameBrowser::SetUpTestSuite();
    }
    void SetUp() override {
        FlameBrowser::SetUp();
        if (IsSkipped()) return;
        ASSERT_TRUE(run_.finished && run_.exit_code == 0) << "the demo-shaped run failed (" << run_.exit_code << ")";
        browser().resize(1280, 820);
        browser().navigate("file://" + run_.html);
    }
    static inline flame_test::DemoShapedRun run_;
};

TEST_F(FlameBrowserDemo, HeaderCountsEveryThreadAndEachViewTotalsItsOwnTime) {
    EXPECT_NE(text_of("summary").find("5 threads"), std::string::npos) << text_of("summary");
    simdjson::dom::parser parser;
    const simdjson::dom::array views = settled(parser, "window.ringprofFlame.views()").get_array();
    ASSERT_EQ(views.size(), 7u) << "merged, side by side, and five threads";
    std::set<std::string> thread_labels;
    for (std::size_t i = 0; i < views.size(); ++i) {
        const std::string kind(std::string_view(views.at(i)["kind"]));
        if (kind == "thread") thread_labels.insert(std::string(std::string_view(views.at(i)["label"])));
        set_select("view", std::to_string(i));
        const std::string summary = text_of("summary");
        EXPECT_NE(summary.find("5 threads"), std::string::npos) << summary;
        EXPECT_EQ(summary.find(" 0 s"), std::string::npos) << "view " << i << ": " << summary;
        EXPECT_GT(double(views.at(i)["base"]), 0.0) << "view " << i;
        const std::string table = text_of("top-self");
        EXPECT_EQ(table.find("\u2013"), std::string::npos) << "a '-' cell in view " << i << ": " << table;
        EXPECT_FALSE(percentages(table).empty()) << table;
        if (kind == "thread" && std::string_view(views.at(i)["label"]) == "trainer")
            save_screenshot("flame_e2e_trainer_view.png");
    }
    const std::set<std::string> expected = {"trainer", "env_worker_0", "env_worker_1",
                                            "thread " + run_.worker_tids.at(0), "thread " + run_.worker_tids.at(1)};
    EXPECT_EQ(thread_labels, expected);
    expect_no_page_errors();
}

TEST_F(FlameBrowserDemo, NoPercentagePassesOneHundredAndTheBaseIsStated) {
    simdjson::dom::parser parser;
    const std::size_t n_views = settled(parser, "window.ringprofFlame.views()").get_array().size();
    for (const char* width : {"wall", "thread"}) {
        set_select("width-mode", width);
        for (std::size_t v = 0; v < n_views; ++v) {
            set_select("view", std::to_string(v));
            for (double p : percentages(text_of("top-self"))) EXPECT_LE(p, 100.0) << "table of view " << v;
            const std::string note = text_of("base-note");
            EXPECT_NE(note.find("thread time"), std::string::npos) << note;
            for (const DrawnFrame& f : frames()) {  // every tooltip, under a real mouse
                if (f.w < 3) continue;
                browser().hover(f.x + f.w / 2, f.y + f.h / 2);
                // The tooltip's values (its second column) and notes, each on its own line.
                const std::string tip = browser().evaluate(
                    "new Promise(r => requestAnimationFrame(() => r([...document.querySelectorAll('#tip "
                    "td:nth-child(2), "
                    "#tip div')].map(e => e.textContent).join('\\n'))))");
                EXPECT_FALSE(tip.empty()) << f.path;
                for (double p : percentages(tip)) EXPECT_LE(p, 100.0) << f.path << ": " << tip;
            }
        }
    }
    set_select("width-mode", "wall");
    set_select("view", "0");
    save_screenshot("flame_e2e_demo_merged.png");
    expect_no_page_errors();
}

TEST_F(FlameBrowserDemo, TrainersWorkIsLabelledSideBySideAndThreadTimeWidthsScaleNothing) {
    set_select("view", "1");  // all threads, side by side
    set_select("width-mode", "thread");
    // The trainer's work sits under its thread's own frame.
    const DrawnFrame step = find(frames(), "all threads/trainer/training/train_step");
    for (const DrawnFrame& f : frames()) {
        if (f.w < 3 || f.path.find("collect_rollout") == std::string::npos) continue;
        browser().hover(f.x + f.w / 2, f.y + f.h / 2);
        EXPECT_EQ(state("tip").find("true width"), std::string::npos) << f.path;
    }
    save_screenshot("flame_e2e_side_by_side.png");

    // Side by side, each frame is as wide as its share of all threads' time, and that share is
    // the scheduler's: on a loaded machine a worker waiting for a core runs longer in wall time,
    // and train_step can come out narrower than its name at any fixed window size. So the window
    // is made wide enough for the whole name (8 px of padding and 10 characters), and the names
    // drawn are read back from the chart's text calls.
    const DrawnFrame all = find(frames(), "all threads");
    ASSERT_GT(step.w, 0.0);
    const double wanted = 150.0, widest = 30000.0;  // a canvas is at most 32,767 px wide
    const double window = std::ceil(1280.0 * std::max(1.0, wanted / step.w));
    if (window > widest) {
        GTEST_SKIP() << "train_step took " << step.w / all.w << " of all threads' time in this run (the trainer "
                     << "was starved of a core): no window up to " << widest << " px draws it wide enough to label";
    }
    browser().evaluate(
        "(() => { window.chartLabels = []; const draw = CanvasRenderingContext2D.prototype.fillText;"
        " CanvasRenderingContext2D.prototype.fillText = function (text) {"
        " if (this.canvas.id === 'chart') window.chartLabels.push(String(text)); return draw.apply(this, arguments); };"
        " return ''; })()");
    browser().resize(static_cast<int>(window), 820);
    set_select("view", "1");  // drawn again, whether or not the window changed
    simdjson::dom::parser parser;
    settled(parser, "window.ringprofFlame.state()");
    const DrawnFrame wide = find(frames(), "all threads/trainer/training/train_step");
    std::printf("train_step: %.1f px of %.0f at 1280 px, %.1f px in a window %.0f px wide (not checked)\n", step.w,
                all.w, wide.w, window);
    EXPECT_GE(wide.w, wanted * 0.9) << "a window " << window << " px wide";
    std::set<std::string> labels;
    for (simdjson::dom::element l : settled(parser, "window.chartLabels").get_array())
        labels.insert(std::string(std::string_view(l)));
    EXPECT_EQ(labels.count("train_step"), 1u) << "train_step, " << wide.w << " px wide, is not labelled";
    EXPECT_EQ(labels.count("trainer"), 1u) << "the trainer's thread frame is not labelled";
    browser().resize(1280, 820);

    // Merged, wall-time widths: the workers' time is drawn scaled into "training", and says so.
    set_select("view", "0");
    set_select("width-mode", "wall");
    const DrawnFrame rollout = find(frames(), "root/training/collect_rollout");
    browser().hover(rollout.x + rollout.w / 2, rollout.y + rollout.h / 2);
    EXPECT_NE(state("tip").find("true width"), std::string::npos) << state("tip");
    expect_no_page_errors();
}

TEST_F(FlameBrowserDemo, TimelineShowsEveryThreadsLaneWithStepsAndZooms) {
    simdjson::dom::parser parser;
    simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    std::set<std::string> lanes;
    for (simdjson::dom::element l : tl["lanes"].get_array()) lanes.insert(std::string(std::string_view(l)));
    const std::set<std::string> expected = {"trainer", "env_worker_0", "env_worker_1",
                                            "thread " + run_.worker_tids.at(0), "thread " + run_.worker_tids.at(1)};
    EXPECT_EQ(lanes, expected);
    EXPECT_EQ(int64_t(tl["steps"]), 12);
    EXPECT_GT(int64_t(tl["drawn"]), 0);
    const double duration = double(tl["duration"]);
    EXPECT_DOUBLE_EQ(double(tl["t0"]), 0.0);
    EXPECT_DOUBLE_EQ(double(tl["t1"]), duration);

    // The wheel zooms in around the mouse: the time under it stays put.
    const double x = double(tl["x"]) + double(tl["w"]) * 0.4, y = double(tl["y"]) + 40;
    const double at = double(tl["t0"]) + 0.4 * duration;
    browser().wheel(x, y, -800);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    const double t0 = double(tl["t0"]), t1 = double(tl["t1"]);
    EXPECT_LT(t1 - t0, duration * 0.5);
    EXPECT_NEAR(t0 + 0.4 * (t1 - t0), at, duration * 0.01);
    save_screenshot("flame_e2e_timeline_zoomed.png");

    // Dragging pans by the distance moved.
    browser().drag(x, y, x - 200, y);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_NEAR(double(tl["t0"]) - t0, 200 * (t1 - t0) / double(tl["w"]), (t1 - t0) * 0.02);
    EXPECT_NEAR(double(tl["t1"]) - double(tl["t0"]), t1 - t0, (t1 - t0) * 1e-6);

    // A click on a span that fits in the view zooms to it (with a 10 % margin either side). The
    // span is chosen by its whole duration, as the page decides: on a loaded machine a step can
    // outlast the zoomed view, and its visible part alone would look clickable.
    struct Hit {
        std::string name;
        double start = 0, dur = 0, x = 0, y = 0;
    };
    const auto first_hit = [&](simdjson::dom::element view, bool fits) {
        const double v0 = double(view["t0"]), v1 = double(view["t1"]);
        for (simdjson::dom::element hit : view["hits"].get_array()) {
            const double s = double(hit["start"]), d = double(hit["dur"]);
            const bool fits_view = d * 1.2 < v1 - v0;
            if (double(hit["w"]) < 4 || (fits ? !fits_view || s < v0 || s + d > v1 : fits_view)) continue;
            return Hit{std::string(std::string_view(hit["name"])), s, d, double(hit["x"]) + double(hit["w"]) / 2,
                       double(hit["y"]) + double(hit["h"]) / 2};
        }
        return Hit{};
    };
    const Hit span = first_hit(tl, true);
    ASSERT_FALSE(span.name.empty()) << "no span of a clickable width inside the view";
    browser().click(span.x, span.y);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_NEAR(double(tl["t0"]), span.start - 0.1 * span.dur, span.dur * 0.01) << span.name;
    EXPECT_NEAR(double(tl["t1"]), span.start + 1.1 * span.dur, span.dur * 0.01) << span.name;

    // A double-click fits the whole run again.
    browser().double_click(x, y);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_DOUBLE_EQ(double(tl["t1"]) - double(tl["t0"]), duration);

    // A click on a span wider than the view zooms in by half around the click instead: the time
    // under the mouse stays put. "training" encloses every other span, but not the whole run: the
    // timeline starts with the session, and on a loaded machine the time before "training" began
    // can be a good part of it. So the view is first narrowed to half of "training", around its
    // middle (the wheel keeps the time under the mouse), which leaves it wider than the view.
    const auto hit_named = [&](simdjson::dom::element view, const std::string& name) {
        for (simdjson::dom::element hit : view["hits"].get_array()) {
            if (std::string_view(hit["name"]) == name) {
                return Hit{name, double(hit["start"]), double(hit["dur"]), double(hit["x"]) + double(hit["w"]) / 2,
                           double(hit["y"]) + double(hit["h"]) / 2};
            }
        }
        return Hit{};
    };
    const Hit training = hit_named(tl, "training");
    ASSERT_FALSE(training.name.empty()) << "\"training\" is not drawn over the whole run";
    const double middle = training.start + training.dur / 2;
    const double middle_x = double(tl["x"]) + (middle - double(tl["t0"])) / duration * double(tl["w"]);
    browser().wheel(middle_x, training.y, std::log(0.5 * training.dur / duration) / 0.002);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    const double view = double(tl["t1"]) - double(tl["t0"]);
    ASSERT_GE(double(tl["t0"]), training.start) << "the view lies inside \"training\"";
    ASSERT_LE(double(tl["t1"]), training.start + training.dur) << "the view lies inside \"training\"";
    const Hit enclosing = first_hit(tl, false);
    ASSERT_EQ(enclosing.name, "training");
    const double under = double(tl["t0"]) + (enclosing.x - double(tl["x"])) / double(tl["w"]) * view;
    browser().click(enclosing.x, enclosing.y);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_NEAR(double(tl["t1"]) - double(tl["t0"]), view * 0.5, view * 1e-6);
    EXPECT_NEAR(double(tl["t0"]) + (enclosing.x - double(tl["x"])) / double(tl["w"]) * (view * 0.5), under,
                view * 0.01);
    expect_no_page_errors();
}

TEST_F(FlameBrowserDemo, PageUsesTheWindowAndGrowsWithIt) {
    auto box = [](const std::string& id) {
        const std::string json = browser().evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => { const b = "
            "document.getElementById('" +
            id + "').getBoundingClientRect(); r(JSON.stringify([b.width, b.height, b.bottom, innerHeight])); })))");
        simdjson::dom::parser parser;
        const simdjson::dom::array a = parser.parse(json).get_array();
        return std::array<double, 4>{double(a.at(0)), double(a.at(1)), double(a.at(2)), double(a.at(3))};
    };
    const auto left = box("left"), chart = box("chart"), tl = box("timeline-panel");
    EXPECT_GE(left[2], 0.9 * left[3]) << "the charts end near the window's bottom";
    EXPECT_GE(tl[1], 0.3 * left[3]) << "the timeline takes the room the icicle leaves";
    browser().resize(1600, 1000);
    const auto chart2 = box("chart"), tl2 = box("timeline-panel");
    EXPECT_GT(chart2[0], chart[0] + 250);
    EXPECT_GT(tl2[1], tl[1] + 100);
    save_screenshot("flame_e2e_demo_1600.png");
    browser().resize(1280, 820);
    expect_no_page_errors();
}

// `ringprof flame <trace>`: the same run read back from its Chrome trace has the timeline too.
TEST_F(FlameBrowserDemo, TracePageHasTheTimelineOfItsThreads) {
    const ringprof::FlameProfile profile = ringprof::load_flame_profile(run_.trace);
    open("demo_shaped_from_trace.html", profile);
    simdjson::dom::parser parser;
    const simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_EQ(tl["lanes"].get_array().size(), 5u);
    EXPECT_EQ(int64_t(tl["spans"]), int64_t(tl["seen"])) << "a small trace is shown whole";
    EXPECT_NE(text_of("summary").find("5 threads"), std::string::npos) << text_of("summary");
    save_screenshot("flame_e2e_from_trace.png");
    expect_no_page_errors();
}

// `ringprof flame` on the run's own output folder: its trace is found as merge finds it, and its
// steps (PROF_STEP) give the steps view, one row for the run's one process.
TEST_F(FlameBrowserDemo, TheRunsFolderHasAStepsViewOfItsProcess) {
    open("demo_shaped_folder.html", ringprof::load_flame_profile(run_.dir));
    simdjson::dom::parser parser;
    const simdjson::dom::element view = settled(parser, "window.ringprofFlame.steps()");
    ASSERT_TRUE(view.is_object());
    EXPECT_EQ(simdjson::dom::array(view["nodes"]).size(), 1u);
    std::vector<int64_t> steps;
    for (simdjson::dom::element s : simdjson::dom::array(view["steps"])) steps.push_back(int64_t(s));
    std::vector<int64_t> expected(12);
    for (int i = 0; i < 12; ++i) expected[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(steps, expected) << "the demo-shaped run steps 0 to 11";
    for (simdjson::dom::element c : simdjson::dom::array(view["cells"])) EXPECT_GT(double(c["us"]), 0.0);
    for (simdjson::dom::element m : simdjson::dom::array(view["marked"]))
        EXPECT_TRUE(m.is_null()) << "one node: no straggler";
    EXPECT_EQ(browser().evaluate("getComputedStyle(document.getElementById('steps-panel')).display"), "flex");
    save_screenshot("flame_e2e_run_folder_steps.png");
    expect_no_page_errors();
}

// The demo's timeline keeps ~53,000 spans; the page's cap is kFlameTimelineMaxSpans.
TEST_F(FlameBrowser, TimelineAtTheSpanCapPaintsAtMostARectPerPixelColumn) {
    ringprof::FlameProfile profile;
    profile.title = "timeline at the span cap";
    profile.merged = flame_test::generated_tree(200);
    profile.timeline.names = {"collect_rollout", "env_step", "physics"};
    const std::size_t per_lane = ringprof::kFlameTimelineMaxSpans / 5;
    for (int l = 0; l < 5; ++l) {
        ringprof::FlameLane lane;
        lane.label = "env_worker_" + std::to_string(l);
        for (std::size_t i = 0; i < per_lane; ++i) {
            const std::int64_t start = static_cast<std::int64_t>(i) * 100'000 + l * 1000;
            lane.spans.push_back({start, 90'000, static_cast<std::uint32_t>(i % 3), static_cast<std::uint32_t>(i % 3)});
        }
        profile.timeline.lanes.push_back(std::move(lane));
    }
    for (int s = 0; s < 100; ++s) profile.timeline.steps.push_back({s, s * 12'000'000LL, (s + 1) * 12'000'000LL});
    profile.timeline.duration_ns = static_cast<std::int64_t>(per_lane) * 100'000;
    profile.timeline.spans_seen = per_lane * 5;
    profile.timeline.note = "generated";
    const std::string path = open("timeline_cap_flame.html", profile);
    std::printf("page with %zu spans: %ju bytes\n", per_lane * 5,
                static_cast<std::uintmax_t>(std::filesystem::file_size(path)));

    simdjson::dom::parser parser;
    simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_EQ(uint64_t(tl["spans"]), per_lane * 5);
    // What keeps a draw fast, as a count rather than a time: spans narrower than a pixel share
    // one rectangle per pixel column, lane and depth, so a draw paints at most that many rects
    // however many spans lie in view (here every span is a fraction of a pixel wide).
    const auto most_rects = [&](simdjson::dom::element view) { return 5.0 * 3.0 * (std::ceil(double(view["w"])) + 1); };
    const double first = double(tl["renderMs"]);
    EXPECT_GT(double(tl["drawn"]), 0.0);
    EXPECT_LE(double(tl["drawn"]), most_rects(tl));
    browser().wheel(double(tl["x"]) + 300, double(tl["y"]) + 40, -600);
    tl = settled(parser, "window.ringprofFlame.timeline()");
    const double zoomed = double(tl["renderMs"]);
    EXPECT_LT(double(tl["t1"]) - double(tl["t0"]), double(tl["duration"]) * 0.5);
    EXPECT_GT(double(tl["drawn"]), 0.0);
    EXPECT_LE(double(tl["drawn"]), most_rects(tl));
    std::printf("timeline of %zu spans: first draw %.1f ms, zoomed draw %.1f ms (not checked)\n", per_lane * 5, first,
                zoomed);
    save_screenshot("flame_e2e_timeline_cap.png");
    expect_no_page_errors();
}

// The steps view of a folder of timelines: a row per node, a column per step, and in each step
// the known straggler outlined (read back from the canvas's pixels, so it is what a user sees).
TEST_F(FlameBrowser, StepsViewShowsEachNodesStepsAndOutlinesTheStraggler) {
    ringprof::testing::TempDir dir;
    const flame_test::StragglerJob job;
    flame_test::write_straggler_job(dir.path() / "job", job);
    open("steps_view_flame.html", ringprof::load_flame_profile((dir.path() / "job").string()));
    browser().evaluate("(() => { document.getElementById('steps-panel').scrollIntoView(); return ''; })()");
    EXPECT_EQ(browser().evaluate("getComputedStyle(document.getElementById('steps-panel')).display"), "flex");

    simdjson::dom::parser parser;
    const simdjson::dom::element view = settled(parser, "window.ringprofFlame.steps()");
    std::vector<std::string> nodes;
    for (simdjson::dom::element n : simdjson::dom::array(view["nodes"])) nodes.emplace_back(std::string_view(n));
    EXPECT_EQ(nodes, job.nodes);
    ASSERT_EQ(simdjson::dom::array(view["steps"]).size(), job.steps());
    const double dpr = double(view["dpr"]), cx = double(view["canvasX"]), cy = double(view["canvasY"]);

    // Every node's every step is drawn, with its time; the red outline is where the test put the
    // straggler, and nowhere else.
    struct Cell {
        double x, y, w, h;
    };
    std::vector<std::vector<Cell>> at(nodes.size(), std::vector<Cell>(job.steps()));
    std::size_t cells = 0;
    for (simdjson::dom::element c : simdjson::dom::array(view["cells"])) {
        const auto n = static_cast<std::size_t>(
            std::find(nodes.begin(), nodes.end(), std::string(std::string_view(c["node"]))) - nodes.begin());
        const auto s = static_cast<std::size_t>(int64_t(c["step"]));
        ASSERT_LT(n, nodes.size());
        ASSERT_LT(s, job.steps());
        EXPECT_EQ(double(c["us"]), static_cast<double>(job.us[n][s])) << nodes[n] << " step " << s;
        EXPECT_GT(double(c["w"]), 4.0);
        at[n][s] = {double(c["x"]), double(c["y"]), double(c["w"]), double(c["h"])};
        ++cells;
    }
    EXPECT_EQ(cells, nodes.size() * job.steps());
    const auto outlined = [&](const Cell& c) {
        // The outline's left edge, inside the cell; the pixel as the canvas holds it.
        const int px = static_cast<int>(std::floor((c.x + 1.5 - cx) * dpr)),
                  py = static_cast<int>(std::floor((c.y + c.h / 2 - cy) * dpr));
        const std::string rgba = browser().evaluate(
            "JSON.stringify(Array.from(document.getElementById('steps').getContext('2d').getImageData(" +
            std::to_string(px) + "," + std::to_string(py) + ",1,1).data))");
        simdjson::dom::parser p;
        const simdjson::dom::array v = p.parse(rgba).get_array();
        return int64_t(v.at(0)) > 180 && int64_t(v.at(1)) < 90 && int64_t(v.at(2)) < 90;
    };
    for (std::size_t s = 0; s < job.steps(); ++s) {
        int marked = -1, count = 0;
        for (std::size_t n = 0; n < nodes.size(); ++n) {
            if (outlined(at[n][s])) {
                marked = static_cast<int>(n);
                ++count;
            }
        }
        EXPECT_EQ(marked, job.straggler[s]) << "step " << s;
        EXPECT_LE(count, 1) << "step " << s;
    }

    // Hover: step, node, time and its ratio to the median of the other nodes.
    {
        const Cell& c = at[2][3];  // algo-2-21 in step 3: 5000 us against 1000 and 1050
        browser().hover(c.x + c.w / 2, c.y + c.h / 2);
        const std::string tip = state("tip");
        EXPECT_NE(tip.find("Step 3"), std::string::npos) << tip;
        EXPECT_NE(tip.find("algo-2-21"), std::string::npos) << tip;
        EXPECT_NE(tip.find("Duration5.00 ms"), std::string::npos) << tip;
        EXPECT_NE(tip.find("4.88\u00d7 the median of the others"), std::string::npos) << tip;
        EXPECT_NE(tip.find("Straggler"), std::string::npos) << tip;
        EXPECT_NE(tip.find("Outlier step"), std::string::npos) << tip;
        save_screenshot("flame_e2e_steps_view.png");
    }
    {
        const Cell& c = at[0][4];  // algo-1-11 in step 4: 1000 us against 1400 and 1000
        browser().hover(c.x + c.w / 2, c.y + c.h / 2);
        const std::string tip = state("tip");
        EXPECT_NE(tip.find("Step 4"), std::string::npos) << tip;
        EXPECT_NE(tip.find("algo-1-11"), std::string::npos) << tip;
        EXPECT_NE(tip.find("0.83\u00d7 the median of the others"), std::string::npos) << tip;
        EXPECT_EQ(tip.find("Straggler"), std::string::npos) << tip;
        EXPECT_EQ(tip.find("Outlier"), std::string::npos) << tip;
    }
    EXPECT_NE(text_of("st-note").find("3 nodes, 6 steps; 3 steps have a straggler, 1 outlier step"), std::string::npos)
        << text_of("st-note");
    expect_no_page_errors();
}

// A folder with system metrics: a heatmap row per core and GPU under the threads, its colour the
// sample's percent (read back from the canvas's pixels: what a user sees).
TEST_F(FlameBrowser, TimelineDrawsEachCoreAndGpuAsAHeatmapLaneUnderTheThreads) {
    open("utilization_flame.html", ringprof::load_flame_profile(std::string(RINGPROF_TEST_SOURCE_DIR) +
                                                                "/merge/smdebug_system_answer/input"));
    browser().evaluate("(() => { document.getElementById('timeline').scrollIntoView(); return ''; })()");
    simdjson::dom::parser parser;
    const simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    const simdjson::dom::array util = tl["util"].get_array();
    ASSERT_EQ(util.size(), 8u);
    const simdjson::dom::element gpu0 = util.at(2);
    ASSERT_EQ(std::string_view(gpu0["label"]), "algo-1 gpu0");
    EXPECT_GT(double(gpu0["y"]), double(tl["y"]) + 22) << "under the axis";
    const double dpr = double(tl["dpr"]), x = double(tl["x"]), w = double(tl["w"]), top = double(tl["y"]);
    const double t0 = double(tl["t0"]), t1 = double(tl["t1"]), y = double(gpu0["y"]) + double(gpu0["h"]) / 2;
    // The pixel in the middle of sample `i` (samples every 100 ms from the timeline's start).
    const auto rgb_at = [&](int i) {
        const double t = (i * 100.0 + 50.0) * 1e6;
        const int px = static_cast<int>(std::floor((x + (t - t0) / (t1 - t0) * w - (x - 130)) * dpr));
        const int py = static_cast<int>(std::floor((y - top) * dpr));
        const std::string rgba = browser().evaluate(
            "JSON.stringify(Array.from(document.getElementById('timeline').getContext('2d').getImageData(" +
            std::to_string(px) + "," + std::to_string(py) + ",1,1).data))");
        simdjson::dom::parser p;
        const simdjson::dom::array v = p.parse(rgba).get_array();
        return std::vector<std::int64_t>{int64_t(v.at(0)), int64_t(v.at(1)), int64_t(v.at(2))};
    };
    const auto at_10 = rgb_at(0);   // gpu0 at 10 %: pale
    const auto at_100 = rgb_at(5);  // gpu0 at 100 %: deep red
    EXPECT_GT(at_10[1], 200) << at_10[0] << "," << at_10[1] << "," << at_10[2];
    EXPECT_GT(at_100[0], 180);
    EXPECT_LT(at_100[1], 90) << at_100[0] << "," << at_100[1] << "," << at_100[2];
}

// The rules' findings over the folder, as lines above the timeline; a click shows the finding's
// time range.
TEST_F(FlameBrowser, TriggeredRulesAreListedOverTheTimelineAndZoomToTheirTime) {
    ringprof::testing::TempDir dir;
    flame_test::write_low_gpu_folder(dir.path());
    open("findings_flame.html", ringprof::load_flame_profile(dir.str()));
    EXPECT_EQ(browser().evaluate("String(document.querySelectorAll('#tl-findings li').length)"), "1");
    const std::string text = browser().evaluate("document.querySelector('#tl-findings li').textContent");
    EXPECT_NE(text.find("LowGPUUtilization: node algo-1, gpu0, steps 300..549"), std::string::npos) << text;
    browser().evaluate("(document.querySelector('#tl-findings li').click(), '')");
    simdjson::dom::parser parser;
    const simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    const double t0 = double(tl["t0"]), t1 = double(tl["t1"]);
    // The finding's 300 s .. 549.5 s in view, the view about that wide (kept inside the run's 549.9 s).
    EXPECT_LE(t0, 300e9);
    EXPECT_GE(t1, 549.5e9);
    EXPECT_LT(t1 - t0, 300e9);
}

TEST_F(FlameBrowser, AFolderWithoutStepsHasNoStepsView) {
    ringprof::testing::TempDir dir;
    flame_test::write_straggler_job(dir.path() / "job", flame_test::StragglerJob(), false);
    open("no_steps_flame.html", ringprof::load_flame_profile((dir.path() / "job").string()));
    simdjson::dom::parser parser;
    EXPECT_TRUE(settled(parser, "window.ringprofFlame.steps()").is_null());
    EXPECT_EQ(browser().evaluate("getComputedStyle(document.getElementById('steps-panel')).display"), "none");
    const simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    EXPECT_EQ(tl["lanes"].get_array().size(), 6u) << "the folder's other views are there";
    expect_no_page_errors();
}

// Hundreds of steps make columns narrower than a pixel: the straggler is a red bar on top of its
// row (an outline would cover its neighbours), and the row's shade stays visible under it.
TEST_F(FlameBrowser, StepsViewWithManyStepsMarksStragglersWithABarOverTheirRow) {
    ringprof::FlameProfile profile;
    profile.title = "many steps";
    profile.merged = flame_test::generated_tree(20);
    constexpr int kSteps = 1500;
    // Steps 0-499: node b is the straggler; 500-999: nobody; 1000-1499: node a.
    for (int s = 0; s < kSteps; ++s) {
        const double a = s >= 1000 ? 1200 : 1000, b = s < 500 ? 1200 : 1000;
        ringprof::StepStraggler st;
        st.step = s;
        st.nodes = 2;
        st.duration_us = std::max(a, b);
        st.by_node = {{"a", a, b}, {"b", b, a}};
        const bool b_slower = b > a;
        st.slowest_node = b_slower ? "b" : "a";
        st.slowest_us = std::max(a, b);
        st.median_of_others_us = b_slower ? a : b;
        profile.node_steps.push_back(std::move(st));
    }
    open("steps_view_many_flame.html", profile);
    browser().evaluate("(() => { document.getElementById('steps-panel').scrollIntoView(); return ''; })()");
    simdjson::dom::parser parser;
    const simdjson::dom::element view = settled(parser, "window.ringprofFlame.steps()");
    EXPECT_FALSE(bool(view["outlined"]));
    const double dpr = double(view["dpr"]), cx = double(view["canvasX"]), cy = double(view["canvasY"]);
    // The cell of `node` (0: a, 1: b) in `step`, from the page's own list.
    struct Cell {
        double x, y, h;
    };
    std::map<std::pair<int, int64_t>, Cell> cells;
    for (simdjson::dom::element c : simdjson::dom::array(view["cells"]))
        cells[{std::string_view(c["node"]) == "a" ? 0 : 1, int64_t(c["step"])}] = {double(c["x"]), double(c["y"]),
                                                                                   double(c["h"])};
    ASSERT_EQ(cells.size(), 2u * kSteps);
    const auto red_at = [&](double x, double y) {
        const std::string rgba = browser().evaluate(
            "JSON.stringify(Array.from(document.getElementById('steps').getContext('2d').getImageData(" +
            std::to_string(static_cast<int>((x - cx) * dpr)) + "," + std::to_string(static_cast<int>((y - cy) * dpr)) +
            ",1,1).data))");
        simdjson::dom::parser p;
        const simdjson::dom::array v = p.parse(rgba).get_array();
        return int64_t(v.at(0)) > 180 && int64_t(v.at(1)) < 90 && int64_t(v.at(2)) < 90;
    };
    for (int64_t step : {250, 750, 1250}) {
        for (int node : {0, 1}) {
            const Cell& c = cells.at({node, step});
            const bool straggler = (node == 1 && step < 500) || (node == 0 && step >= 1000);
            EXPECT_EQ(red_at(c.x, c.y + 1), straggler) << "top of node " << node << " at step " << step;
            EXPECT_FALSE(red_at(c.x, c.y + c.h * 0.75)) << "the shade under the bar, node " << node << " step " << step;
        }
    }
    save_screenshot("flame_e2e_steps_view_many.png");
    expect_no_page_errors();
}

}  // namespace

// Every name on the page comes from the profiled program (scopes, threads, nodes, the title), so
// none may become markup: each place the page shows a name — the views' labels, frames and their
// tooltips, the top-self-time table, the timeline's lanes and spans and their tooltips, the steps
// view's nodes and their tooltips — is hovered with names that are HTML, and nothing runs and no
// element appears; the tooltip shows the name as the text it is.
TEST_F(FlameBrowser, NamesThatAreMarkupStayTextInEveryPlaceThePageShowsThem) {
    const auto evil = [](const std::string& where) {
        return "<img src=x onerror=\"window.__ringprofInjected=(window.__ringprofInjected||[]).concat(['" + where +
               "'])\">" + where + "</b>&amp;";
    };
    const std::string frame = evil("frame"), child = evil("child");
    ringprof::FlameProfile p;
    p.title = evil("title");
    p.merged = flame_test::node("root", 10.0, 1, false,
                                {flame_test::node(frame.c_str(), 8.0, 10, false, {flame_test::node(child.c_str(), 5.0, 40)})});
    p.threads.push_back({evil("thread"),
                         flame_test::node("root", 9.0, 1, false, {flame_test::node(frame.c_str(), 9.0, 3)}), 0,
                         evil("detail")});
    p.timeline.names = {evil("span"), evil("inner")};
    p.timeline.lanes.push_back({evil("lane"), {{0, 900000000, 0, 0}, {100000000, 500000000, 1, 1}}});
    p.timeline.steps.push_back({7, 0, 900000000});
    p.timeline.duration_ns = 1000000000;
    p.timeline.spans_seen = 2;
    for (std::int64_t step = 0; step < 3; ++step) {
        ringprof::StepStraggler s;
        s.step = step;
        s.duration_us = 2000;
        s.slowest_node = evil("node-a");
        s.slowest_us = 2000;
        s.median_of_others_us = 1000;
        s.nodes = 2;
        s.by_node = {{evil("node-a"), 2000, 1000}, {evil("node-b"), 1000, 2000}};
        p.node_steps.push_back(s);
    }
    open("markup_names_flame.html", p);

    const auto injected = [] {
        return browser().evaluate(
            "JSON.stringify({ran: window.__ringprofInjected || [], imgs: document.querySelectorAll('img').length})");
    };
    const std::string none = "{\"ran\":[],\"imgs\":0}";
    const auto tip_text = [] {  // as it is shown (state("tip") is the same text, JSON-quoted)
        return browser().evaluate(
            "new Promise(r => requestAnimationFrame(() => r(document.getElementById('tip').textContent)))");
    };
    EXPECT_EQ(injected(), none) << "after loading";
    EXPECT_NE(browser().evaluate("document.title").find(evil("title")), std::string::npos)
        << browser().evaluate("document.title");

    // Frames of every view, each hovered; the tooltip's text holds the name verbatim.
    const std::string view_count = state("views");
    std::size_t hovered = 0;
    for (int v = 0; v < std::stoi(view_count); ++v) {
        browser().evaluate("(() => { const s = document.getElementById('view'); if (s) { s.selectedIndex = " +
                           std::to_string(v) + "; s.dispatchEvent(new Event('change')); } return ''; })()");
        for (const DrawnFrame& f : frames()) {
            if (f.name == "root" || f.w < 2) continue;
            browser().hover(f.x + f.w / 2, f.y + f.h / 2);
            const std::string tip = tip_text();
            EXPECT_NE(tip.find(f.name), std::string::npos) << "tooltip of " << f.name << ": " << tip;
            ++hovered;
        }
    }
    EXPECT_GE(hovered, 3u);
    EXPECT_EQ(injected(), none) << "after hovering the frames";

    // The timeline's spans, each hovered.
    simdjson::dom::parser parser;
    browser().evaluate("(() => { document.getElementById('timeline-panel').scrollIntoView(); return ''; })()");
    const simdjson::dom::element tl = settled(parser, "window.ringprofFlame.timeline()");
    ASSERT_TRUE(tl.is_object()) << "the page has no timeline";
    std::size_t spans = 0;
    for (simdjson::dom::element hit : simdjson::dom::array(tl["hits"])) {
        const std::string name{std::string_view(hit["name"])};
        browser().hover(double(hit["x"]) + double(hit["w"]) / 2, double(hit["y"]) + double(hit["h"]) / 2);
        const std::string tip = tip_text();
        EXPECT_NE(tip.find(name), std::string::npos) << "span tooltip: " << tip;
        EXPECT_NE(tip.find(evil("lane")), std::string::npos) << "span tooltip: " << tip;
        ++spans;
    }
    EXPECT_EQ(spans, 2u);
    EXPECT_EQ(injected(), none) << "after hovering the timeline";

    // The steps view's cells, each hovered.
    browser().evaluate("(() => { document.getElementById('steps-panel').scrollIntoView(); return ''; })()");
    simdjson::dom::parser steps_parser;
    const simdjson::dom::element st = settled(steps_parser, "window.ringprofFlame.steps()");
    ASSERT_TRUE(st.is_object()) << "the page has no steps view";
    std::size_t cells = 0;
    for (simdjson::dom::element c : simdjson::dom::array(st["cells"])) {
        const std::string node{std::string_view(c["node"])};
        browser().hover(double(c["x"]) + double(c["w"]) / 2, double(c["y"]) + double(c["h"]) / 2);
        const std::string tip = tip_text();
        EXPECT_NE(tip.find(node), std::string::npos) << "steps tooltip: " << tip;
        ++cells;
    }
    EXPECT_EQ(cells, 6u);
    EXPECT_EQ(injected(), none) << "after hovering the steps view";
    expect_no_page_errors();
}
