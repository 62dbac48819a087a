// Tracks are numbered in the order they first appear in the merged file, which is the order of
// each track's earliest event, wherever that event sits in its own file; and each is announced
// before its first event, in memory or spilled, on one reader thread or several.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;

namespace {

TEST(MergeTrackNumbers, ATrackIsNumberedByItsEarliestEventNotByItsFirstLine) {
    TempDir dir;
    // Host a's Forward track opens with a late event and has its earliest one further down;
    // host b's lies between the two.
    write_file(pevents_file(dir.path(), kBase + 100000, "1-a", "pythontimeline.json"),
               smdebug_timeline(kBase, {{"Forward", "a_late", 900, 5, ""}, {"Forward", "a_early", 100, 5, ""}}));
    write_file(pevents_file(dir.path(), kBase + 100000, "2-b", "pythontimeline.json"),
               smdebug_timeline(kBase, {{"Forward", "b_mid", 500, 5, ""}}));
    for (std::size_t budget : {std::size_t{256} << 20, std::size_t{1}}) {  // in memory, then spilled
        for (unsigned threads : {1u, 2u}) {
            ringprof::MergedTimeline merger(dir.path().string(), {}, (dir.path() / "out").string());
            merger.set_reader_threads(threads);
            merger.set_memory_budget(budget);
            const ringprof::MergeResult r = merger.merge_all();
            ASSERT_TRUE(r.complete()) << budget << " " << threads;
            const auto all = read_output(r.output_path);
            const auto x = only_x(all);
            ASSERT_EQ(x.size(), 3u);
            EXPECT_EQ(x[0].name, "a_early");
            EXPECT_EQ(x[0].tid, 1);
            EXPECT_EQ(thread_name_of(all, x[0].pid, 1).substr(0, 3), "1-a");
            EXPECT_EQ(x[1].name, "b_mid");
            EXPECT_EQ(x[1].tid, 2);
            EXPECT_EQ(x[2].tid, 1);
            std::set<std::pair<std::int64_t, std::int64_t>> announced;
            for (const auto& e : all) {
                if (e.ph == "M" && e.name == "thread_name") announced.emplace(e.pid, e.tid);
                if (e.ph == "X") {
                    EXPECT_EQ(announced.count({e.pid, e.tid}), 1u) << e.name << " before its thread_name";
                }
            }
        }
    }
}

}  // namespace
