// `ringprof merge` gives smdebug's answer: on the input in tests/merge/smdebug_answer/input, the
// file SageMaker Debugger's own MergedTimeline wrote (smdebug_merged_timeline.json, made as
// make_input.py there says) and ours hold the same events in the same order, in processes of the
// same pid and name, on threads of the same name. Thread ids are compared through their names:
// smdebug's are Python string hashes (docs/merge.md).
#include <gtest/gtest.h>

#include <string>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

namespace {

using namespace merge_test;

const std::string kFixture = std::string(RINGPROF_TEST_SOURCE_DIR) + "/merge/smdebug_answer";

std::string process_name_of(const std::vector<OutEvent>& all, std::int64_t pid) {
    for (const OutEvent& e : all)
        if (e.ph == "M" && e.name == "process_name" && e.pid == pid) return e.meta_name;
    return "(undeclared)";
}

TEST(MergeSmdebugAnswer, SameEventsInTheSameOrderAsSmdebugsOwnMerger) {
    TempDir out;
    ringprof::MergedTimeline merger(kFixture + "/input", {}, out.path().string());
    const ringprof::MergeResult r = merger.merge_all();
    ASSERT_TRUE(r.complete());

    const std::vector<OutEvent> ours = read_output(r.output_path);
    const std::vector<OutEvent> theirs = read_output(kFixture + "/smdebug_merged_timeline.json");
    const std::vector<OutEvent> our_x = only_x(ours), their_x = only_x(theirs);
    ASSERT_EQ(their_x.size(), 260u);  // what smdebug wrote: the fixture is whole
    ASSERT_EQ(our_x.size(), their_x.size());
    for (std::size_t i = 0; i < our_x.size(); ++i) {
        const OutEvent& a = our_x[i];
        const OutEvent& b = their_x[i];
        SCOPED_TRACE("X event #" + std::to_string(i) + " (" + b.name + ")");
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.ts, b.ts);
        EXPECT_EQ(a.dur, b.dur);
        EXPECT_EQ(a.args_json, b.args_json);
        EXPECT_EQ(a.pid, b.pid);
        EXPECT_EQ(process_name_of(ours, a.pid), process_name_of(theirs, b.pid));
        EXPECT_EQ(thread_name_of(ours, a.pid, a.tid), thread_name_of(theirs, b.pid, b.tid));
    }
}

}  // namespace
