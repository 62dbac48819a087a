// The suffix filter (`ringprof merge --suffix S`): every value against a folder holding every kind
// of timeline, ringprof's own trace beside framework/ included. Each file's events are named after
// the file, so the merged output says exactly which files the filter let through.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;

namespace {

// A folder with one file of each kind; returns the event names each suffix's files hold.
std::map<std::string, std::set<std::string>> write_every_kind(const fs::path& root) {
    write_file(pevents_file(root, kBase + 500, "905-host", "pythontimeline.json"),
               smdebug_timeline(kBase, {{"Python", "from_pythontimeline", 100, 50, ""}}));
    write_file(pevents_file(root, kBase + 600, "905-host", "model_timeline.json"),
               smdebug_timeline(kBase, {{"Forward", "from_model_timeline", 110, 50, ""}}));
    write_file(pevents_file(root, kBase + 700, "905-host", "horovod_timeline.json"),
               R"([
{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": )" +
                   std::to_string(kBase) + R"(}},
{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Horovod allreduce"}},
{"name": "from_horovod_timeline", "ph": "B", "ts": 120, "pid": 1},
{"name": "from_horovod_timeline", "ph": "E", "ts": 170, "pid": 1}
])");
    const std::string trace_events = R"({"displayTimeUnit":"ns","traceEvents":[
{"name":"process_name","ph":"M","pid":1,"args":{"name":"ringprof"}},
{"name":"NAME","ph":"X","pid":1,"tid":4,"ts":)" + std::to_string(kBase + 130) + R"(,"dur":50}]})";
    std::string in_pevents = trace_events, beside = trace_events;
    in_pevents.replace(in_pevents.find("NAME"), 4, "from_pevents_trace");
    beside.replace(beside.find("NAME"), 4, "from_ringprof_trace");
    write_gzip(pevents_file(root, kBase + 800, "906-host", "trace.json.gz"), in_pevents);
    write_gzip(root / "train_906_trace.json.gz", beside);  // ringprof's output folder layout
    return {{"pythontimeline.json", {"from_pythontimeline"}},
            {"model_timeline.json", {"from_model_timeline"}},
            {"horovod_timeline.json", {"from_horovod_timeline"}},
            {"trace.json.gz", {"from_pevents_trace", "from_ringprof_trace"}}};
}

std::set<std::string> merged_names(const fs::path& root, const std::vector<std::string>& filter, const fs::path& out) {
    const auto r = MergedTimeline(root.string(), filter, out.string()).merge_all();
    EXPECT_TRUE(r.complete()) << (r.skipped.empty() ? "" : r.skipped[0].path + ": " + r.skipped[0].reason);
    std::set<std::string> names;
    for (const OutEvent& e : only_x(read_output(r.output_path))) names.insert(e.name);
    return names;
}

TEST(MergeSuffixFilter, EachSuffixMergesExactlyTheFilesThatEndWithIt) {
    TempDir dir;
    const auto kinds = write_every_kind(dir.path());
    std::set<std::string> every;
    int n = 0;
    for (const auto& [suffix, names] : kinds) {
        EXPECT_EQ(merged_names(dir.path(), {suffix}, dir.path() / ("out" + std::to_string(n++))), names) << suffix;
        every.insert(names.begin(), names.end());
    }
    EXPECT_EQ(merged_names(dir.path(), {}, dir.path() / "out_all"), every) << "no filter: every kind";
}

TEST(MergeSuffixFilter, SeveralSuffixesMergeTheUnionOfTheirFiles) {
    TempDir dir;
    const auto kinds = write_every_kind(dir.path());
    std::set<std::string> both = kinds.at("pythontimeline.json");
    both.insert(kinds.at("trace.json.gz").begin(), kinds.at("trace.json.gz").end());
    EXPECT_EQ(merged_names(dir.path(), {"pythontimeline.json", "trace.json.gz"}, dir.path() / "out"), both);
}

}  // namespace
