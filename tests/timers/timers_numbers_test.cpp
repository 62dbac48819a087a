// Timers JSON holds only numbers every reader reads back as written: finite totals, counts up to
// 2^53. A tree beyond them is refused naming the node, merge-timers leaves out the file whose sums
// would cross them (exit 3, the others merged), and what merge-timers writes, merge-timers and
// flame read back.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace ringprof {
namespace {

constexpr std::uint64_t kTwoTo53 = std::uint64_t{1} << 53;

TimerTree tree_with(double step_total, std::uint64_t step_count) {
    TimerTree t;
    t.root.total = 1.0;
    t.root.count = 1;
    TimerNode& train = t.root.child("train");
    train.total = 1.0;
    train.count = 1;
    TimerNode& step = train.child("step");
    step.total = step_total;
    step.count = step_count;
    return t;
}

TEST(TimersNumbers, TheLimitsThemselvesAreWrittenAndReadBack) {
    const TimerTree t = tree_with(std::numeric_limits<double>::max(), kTwoTo53);
    EXPECT_FALSE(unwritable_timers_number(t).has_value());
    for (TimersFormat format : {TimersFormat::List, TimersFormat::Dict}) {
        const TimerTree back = parse_timers_json(write_timers_json(t, format));
        const TimerNode* step = back.root.find_path("train/step");
        ASSERT_NE(step, nullptr);
        EXPECT_EQ(step->count, kTwoTo53);
        EXPECT_EQ(step->total, std::numeric_limits<double>::max());
    }
}

TEST(TimersNumbers, AnOverflowedTotalOrACountAbove2To53IsRefusedNamingTheNode) {
    struct Case {
        const char* what;
        TimerTree tree;
        const char* expected;
    };
    TimerTree gauge_count = tree_with(1.0, 1);
    gauge_count.gauge("loss").set(0.5, 1);
    gauge_count.gauges[0].second.count = kTwoTo53 + 1;
    const Case cases[] = {
        {"infinite total", tree_with(std::numeric_limits<double>::infinity(), 1), "node 'root/train/step': total is inf"},
        {"NaN total", tree_with(std::numeric_limits<double>::quiet_NaN(), 1), "node 'root/train/step': total is nan"},
        {"count 2^53 + 1", tree_with(1.0, kTwoTo53 + 1),
         "node 'root/train/step': count 9007199254740993 is above 2^53"},
        {"count 2^64 - 1", tree_with(1.0, ~std::uint64_t{0}), "node 'root/train/step': count 18446744073709551615"},
        {"gauge count", gauge_count, "gauge 'loss': count 9007199254740993 is above 2^53"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const std::optional<std::string> why = unwritable_timers_number(c.tree);
        ASSERT_TRUE(why.has_value());
        EXPECT_NE(why->find(c.expected), std::string::npos) << *why;
        for (TimersFormat format : {TimersFormat::List, TimersFormat::Dict}) {
            try {
                const std::string text = write_timers_json(c.tree, format);
                ADD_FAILURE() << "written: " << text;
            } catch (const TimersJsonError& e) {
                EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
            }
        }
    }
}

TEST(TimersNumbers, ADeepTreeIsCheckedWithoutRecursion) {
    TimerTree t;
    TimerNode* n = &t.root;
    for (int i = 0; i < 20000; ++i) {
        n = &n->child("d");
        n->count = 1;
    }
    n->count = kTwoTo53 + 1;
    const std::optional<std::string> why = unwritable_timers_number(t);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("count 9007199254740993"), std::string::npos);
}

#ifdef RINGPROF_TOOL

void write(const std::string& path, const TimerTree& t) { std::ofstream(path) << write_timers_json(t, TimersFormat::List); }

// Each file alone is readable; together their sums are not: the file that would cross is named
// with the node, left out, and what is written reads back in merge-timers and flame.
TEST(TimersNumbers, MergeTimersLeavesOutTheFileThatWouldOverflowAndReadsItsOwnOutput) {
    testing::TempDir dir;
    const std::string a = dir.str() + "/a_timers.json", big = dir.str() + "/big_timers.json",
                      huge = dir.str() + "/huge_timers.json", out = dir.str() + "/merged.json";
    write(a, tree_with(2.0, 10));
    write(big, tree_with(3.0, kTwoTo53 - 5));                             // + 10: above 2^53
    write(huge, tree_with(std::numeric_limits<double>::max(), 1));        // fits alone
    const std::string huge2 = dir.str() + "/huge2_timers.json";
    write(huge2, tree_with(std::numeric_limits<double>::max(), 1));       // with huge: inf

    const testing::ToolRun r = testing::run_ringprof("merge-timers -o " + out + " " + a + " " + big + " " + huge +
                                                     " " + huge2);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("skipped " + big + ": merging it would make node 'root/train/step': count " +
                         std::to_string(kTwoTo53 + 5) + " is above 2^53"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("skipped " + huge2 + ": merging it would make node 'root/train/step': total is inf"),
              std::string::npos)
        << r.err;
    const TimerTree merged = load_timers_json(out);  // throws if the file is not readable
    const TimerNode* step = merged.root.find_path("train/step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->count, 11u) << "a and huge";
    EXPECT_EQ(step->total, std::numeric_limits<double>::max());

    // Its own output, read again: by merge-timers and by flame.
    const testing::ToolRun again = testing::run_ringprof("merge-timers -o " + dir.str() + "/again.json " + out);
    EXPECT_EQ(again.code, 0) << again.err;
    const testing::ToolRun flame = testing::run_ringprof("flame " + out + " -o " + dir.str() + "/merged.html");
    EXPECT_EQ(flame.code, 0) << flame.err;
}

#endif

}  // namespace
}  // namespace ringprof
