// Writers are linear in what they write: a recursion 10,000 scopes deep once made timers.json
// 3.2 GB (indentation grew with depth) and took 37 s at exit. Every aggregate output of it must
// now be a few MB and parse back.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>

#include "nested_levels.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/stats.hpp"
#include "temp_dir.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

// 1,000 under sanitizers (RINGPROF_TEST_SCALE=10): their larger frames overflow the drainer's
// stack in the recursive tree walks at 10,000. The old writer still wrote 32 MB at 1,000.
const int kDepth = static_cast<int>(scaled(10000));
constexpr std::size_t kMaxDepth = 10000;

// Levels below the root, walked without recursion (the readers recurse, and sanitizer frames
// overflow a thread's stack long before 10,000 levels).
int depth_of_timers_file(const std::string& text) {
    simdjson::dom::parser parser;
    EXPECT_EQ(parser.allocate(text.size(), 4 * kMaxDepth), simdjson::SUCCESS);
    simdjson::dom::element node;
    const auto error = parser.parse(text).get(node);
    EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error);
    if (error) return -1;
    int depth = 0;
    simdjson::dom::array children;
    while (node["children"].get(children) == simdjson::SUCCESS && children.size() != 0) {
        node = children.at(0);
        EXPECT_EQ(std::string_view(node["name"]), "level");
        ++depth;
    }
    return depth;
}

TEST(DeepNesting, TenThousandLevelsWriteEveryAggregateOutputInAFewMegabytes) {
    TempDir dir;
    Config c;
    c.output_dir = dir.str();
    c.run_id = "deep";
    c.backends = {"timers", "stats", "flame", "flame_svg", "folded"};
    const auto started = std::chrono::steady_clock::now();
    {
        Session session(c);
        nest_levels(kDepth);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%d levels: session and every output in %.2f s\n", kDepth, seconds);
    // Not the folded stacks: that format spells each line's whole stack, so a chain with self
    // time at every level is quadratic in depth by definition (14 MB here, written in ms).
    for (const char* name : {"deep_timers.json", "deep_stats.json", "deep_flame.html", "deep_flame.svg"}) {
        const auto path = dir.path() / name;
        ASSERT_TRUE(std::filesystem::exists(path)) << name;
        const auto bytes = std::filesystem::file_size(path);
        std::printf("%s: %.2f MB\n", name, static_cast<double>(bytes) / 1e6);
        EXPECT_LT(bytes, 8u * 1000 * 1000) << name << " grows faster than the tree";
    }
    // The tree keeps kMaxTreeDepth levels; the deeper ones are folded into the last (README).
    EXPECT_EQ(depth_of_timers_file(read_text(dir.path() / "deep_timers.json")),
              std::min(kDepth, static_cast<int>(kMaxTreeDepth)));
    const auto stats = load_stats_json((dir.path() / "deep_stats.json").string());
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].counts.ncalls, static_cast<std::uint64_t>(kDepth));
    EXPECT_EQ(stats[0].counts.primitive_calls, 1u);
}

}  // namespace
}  // namespace ringprof
