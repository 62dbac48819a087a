// The page's style sheet, markup and script are files of the source tree (sdk/src/flame/assets),
// built into the library: the page carries each of them byte for byte, in its place, and needs
// nothing else at run time.
#include <gtest/gtest.h>

#include <string>

#include "flame/html_assets.hpp"
#include "flame_test_trees.hpp"
#include "ringprof/flame.hpp"
#include "temp_dir.hpp"

namespace {

std::string asset(const char* name) {
    return ringprof::testing::read_text(std::string(RINGPROF_TEST_SOURCE_DIR) + "/../sdk/src/flame/assets/" + name);
}

TEST(FlamePageAssets, AreTheSourceFilesByteForByte) {
    const std::string css = asset("flame.css"), body = asset("flame_body.html"), js = asset("flame.js");
    ASSERT_FALSE(css.empty() || body.empty() || js.empty()) << "the asset files were not found";
    EXPECT_EQ(ringprof::detail::flame_page_css(), css);
    EXPECT_EQ(ringprof::detail::flame_page_body(), body);
    EXPECT_EQ(ringprof::detail::flame_page_js(), js);
}

TEST(FlamePageAssets, EachStandsWholeInItsPlaceOnThePage) {
    ringprof::FlameProfile profile;
    profile.title = "run";
    profile.merged = flame_test::training_tree();
    const std::string html = ringprof::render_html(profile);
    const std::string css = asset("flame.css"), body = asset("flame_body.html"), js = asset("flame.js");
    const auto style_at = html.find("<style>\n" + css + "</style>\n</head>\n" + body);
    const auto data_at = html.find("<script type=\"application/json\" id=\"flame-data\">");
    const auto script_at = html.rfind("</script>\n<script>\n" + js + "</script>\n</body>\n</html>\n");
    ASSERT_NE(style_at, std::string::npos) << "the style sheet and the markup, whole, in the head and body";
    ASSERT_NE(script_at, std::string::npos) << "the script, whole, at the end";
    EXPECT_LT(style_at, data_at);
    EXPECT_LT(data_at, script_at);
    EXPECT_EQ(script_at + std::string("</script>\n<script>\n").size() + js.size() +
                  std::string("</script>\n</body>\n</html>\n").size(),
              html.size());
}

}  // namespace
