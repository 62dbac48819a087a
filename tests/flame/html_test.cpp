// The page without a browser: self-contained, and carrying exactly the trees it was given.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"

namespace {

ringprof::FlameProfile two_thread_profile() {
    ringprof::FlameProfile p;
    p.title = "demo </script><b>run</b>";
    p.merged = flame_test::training_tree();
    p.threads.push_back({"main (tid 1)",
                         flame_test::node("root", 10.0, 1, false, {flame_test::node("train_step", 8.0, 100)}), 0,
                         "tid 1"});
    p.threads.push_back({"worker (tid 2)",
                         flame_test::node("root", 9.0, 1, false, {flame_test::node("simulate", 3.0, 800)}), 7,
                         "tid 2"});
    p.dropped = 7;
    return p;
}

std::string data_block(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"flame-data\">";
    const auto begin = html.find(open);
    EXPECT_NE(begin, std::string::npos);
    if (begin == std::string::npos) return {};
    const auto end = html.find("</script>", begin);
    return html.substr(begin + open.size(), end - begin - open.size());
}

TEST(Html, NeedsNoNetwork) {
    const std::string html = ringprof::render_html(two_thread_profile());
    for (const char* banned : {"http://", "https://", "<link rel=\"stylesheet\"", " src=", "@import", "url("}) {
        EXPECT_EQ(html.find(banned), std::string::npos) << banned;
    }
    EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(Html, DataBlockHoldsEveryViewNodeForNode) {
    const ringprof::FlameProfile profile = two_thread_profile();
    const std::string html = ringprof::render_html(profile);
    const std::string json = data_block(html);
    ASSERT_EQ(json.find('<'), std::string::npos) << "a '<' could end the script element";

    simdjson::dom::parser parser;
    const simdjson::dom::element doc = parser.parse(json);
    EXPECT_EQ(std::string(std::string_view(doc["title"])), profile.title);
    EXPECT_EQ(int64_t(doc["dropped"]), 7);
    const simdjson::dom::array names = doc["names"];
    const simdjson::dom::array views = doc["views"];
    ASSERT_EQ(views.size(), 1 + profile.threads.size());

    std::vector<const ringprof::TimerNode*> trees{&profile.merged};
    for (const auto& t : profile.threads) trees.push_back(&t.tree);
    std::size_t v = 0;
    for (simdjson::dom::element view : views) {
        std::vector<std::string> expected_names;
        std::vector<double> expected_totals;
        std::vector<bool> expected_parallel;
        flame_test::for_each_path(*trees[v],
                                  [&](const std::string&, const ringprof::TimerNode& n, const ringprof::TimerNode*) {
                                      expected_names.push_back(n.name);
                                      expected_totals.push_back(n.total);
                                      expected_parallel.push_back(n.is_parallel);
                                  });
        const simdjson::dom::array n = view["n"], p = view["p"], t = view["t"], f = view["f"];
        ASSERT_EQ(n.size(), expected_names.size());
        std::size_t i = 0;
        for (simdjson::dom::element id : n) {
            EXPECT_EQ(std::string(std::string_view(names.at(uint64_t(id)))), expected_names[i]);
            EXPECT_DOUBLE_EQ(double(t.at(i)), expected_totals[i]);
            EXPECT_EQ(int64_t(f.at(i)) == 1, expected_parallel[i]);
            EXPECT_LT(int64_t(p.at(i)), static_cast<int64_t>(i));  // parents first
            ++i;
        }
        if (v > 0) {
            EXPECT_EQ(std::string(std::string_view(view["label"])), profile.threads[v - 1].label);
        }
        ++v;
    }
}

TEST(Html, TitleIsEscapedInTheHead) {
    const std::string html = ringprof::render_html(two_thread_profile());
    EXPECT_NE(html.find("<title>demo &lt;/script&gt;&lt;b&gt;run&lt;/b&gt; - flame graph</title>"), std::string::npos);
}

// Speed belongs to a benchmark (bench/bench_flame), not to a unit test on a shared machine.
TEST(Html, TenThousandNodesRenderCompactly) {
    ringprof::FlameProfile p;
    p.title = "generated";
    p.merged = flame_test::generated_tree(10000);
    ASSERT_EQ(flame_test::node_count(p.merged), 10000u);
    const std::string html = ringprof::render_html(p);
    EXPECT_LT(html.size(), 1024u * 1024u);
    EXPECT_NE(html.find("fn_9999_"), std::string::npos) << "the last generated node must be in the page";
}

}  // namespace
