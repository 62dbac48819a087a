// Each input kind, read and merged: absolute times, pids per phase, thread tracks and metadata.
#include <gtest/gtest.h>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;
using ringprof::MergeUnit;

namespace {

TEST(MergeSources, PythonAndModelTimelinesShareAbsoluteTime) {
    TempDir dir;
    write_file(
        pevents_file(dir.path(), kBase + 500, "905-host", "pythontimeline.json"),
        smdebug_timeline(
            kBase, {{"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", 100, 300, R"({"pid": 905, "step_num": "0"})"},
                    {"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", 400, 90, R"({"pid": 905, "step_num": "1"})"}}));
    // A different base: the merge must line events up on absolute time, not on ts.
    write_file(pevents_file(dir.path(), kBase + 600, "905-host", "model_timeline.json"),
               smdebug_timeline(kBase - 1000, {{"DataIterator", "dataset::GetNext", 1150, 5, ""},
                                               {"Forward", "conv1", 1100, 50, ""}}));
    MergedTimeline merger(dir.path().string(), {}, (dir.path() / "out").string());
    const auto r = merger.merge_all();
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(r.files_merged, 2u);
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 4u);
    EXPECT_EQ(x[0].name, "Step:ModeKeys.TRAIN");
    EXPECT_EQ(x[0].ts, kBase + 100);
    EXPECT_EQ(x[0].pid, 1);
    EXPECT_EQ(x[1].name, "conv1");  // base-1000 + 1100
    EXPECT_EQ(x[1].pid, 10000);
    // Equal start times: pythontimeline before model_timeline, as smdebug reads them.
    EXPECT_EQ(x[2].name, "dataset::GetNext");
    EXPECT_EQ(x[2].ts, kBase + 150);
    EXPECT_EQ(x[2].pid, 30000);
    EXPECT_EQ(x[3].ts, kBase + 400);
    EXPECT_EQ(x[0].args_json, R"({"pid":905,"step_num":"0"})");
    // Metadata precede first use: process_name, process_sort_index, thread_name, event.
    ASSERT_GE(all.size(), 4u);
    EXPECT_EQ(all[0].name, "process_name");
    EXPECT_EQ(all[0].meta_name, "Step:ModeKeys.TRAIN");
    EXPECT_EQ(all[1].name, "process_sort_index");
    EXPECT_EQ(all[2].name, "thread_name");
    EXPECT_EQ(thread_name_of(all, 1, x[0].tid), "905-host_0");
    EXPECT_EQ(r.events_written, 4u);
    EXPECT_EQ(r.metadata_written, all.size() - 4);
    // Named after the last event end when no range is given.
    EXPECT_NE(r.output_path.find(std::to_string(kBase + 490) + "_"), std::string::npos);
}

TEST(MergeSources, HorovodBeginEndPairsBecomeCompleteEvents) {
    TempDir dir;
    const std::string horovod = R"([
{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1000000}},
{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Horovod allreduce.grad_0"}},
{"name": "NEGOTIATE_ALLREDUCE", "ph": "B", "ts": 10, "pid": 1, "args": {"step_num": "3"}},
{"name": "ALLREDUCE", "ph": "B", "ts": 12, "pid": 1},
{"ph": "E", "ts": 20, "pid": 1},
{"ph": "E", "ts": 30, "pid": 1, "args": {"bytes": 4096}},
{"ph": "E", "ts": 40, "pid": 1},
{"name": "marker", "ph": "i", "ts": 41, "pid": 1, "s": "g"}
])";
    write_file(pevents_file(dir.path(), 1000040, "1-algo-1", "horovod_timeline.json"), horovod);
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[0].name, "NEGOTIATE_ALLREDUCE");
    EXPECT_EQ(x[0].ts, 1000010);
    EXPECT_EQ(x[0].dur, 20);
    EXPECT_EQ(x[0].args_json, R"({"bytes":4096})");
    EXPECT_EQ(x[0].pid, 90000);
    EXPECT_EQ(x[1].name, "ALLREDUCE");
    EXPECT_EQ(x[1].dur, 8);
    // "1-algo-1" is shown as "algo-1-1" so hosts sort together.
    EXPECT_EQ(thread_name_of(all, 90000, x[0].tid), "algo-1-1_0");
    EXPECT_EQ(r.notes.size(), 1u);  // the unmatched E
    EXPECT_TRUE(r.complete());
}

TEST(MergeSources, SmDataParallelEndWithoutNameIsAccepted) {
    TempDir dir;
    write_file(pevents_file(dir.path(), 2000100, "0-node", "smdataparallel_timeline.json"), R"([
{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 2000000}},
{"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "AllReduce"}},
{"name": "allreduce", "ph": "B", "ts": 5, "pid": 3, "tid": 7},
{"ph": "E", "ts": 9.5, "pid": 3, "tid": 7}
])");
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 1u);
    EXPECT_EQ(x[0].ts, 2000005);
    EXPECT_DOUBLE_EQ(x[0].dur, 4.5);
    EXPECT_EQ(x[0].pid, 1000000);
    EXPECT_EQ(thread_name_of(all, x[0].pid, x[0].tid), "0-node_7");
    EXPECT_NE(read_text(r.output_path).find("\"dur\": 4.5"), std::string::npos);
}

TEST(MergeSources, TensorFlowTraceTakesItsBaseFromTheMarker) {
    TempDir dir;
    const auto step = dir.path() / "framework" / "tensorflow" / "detailed_profiling" / "2020080513" / "000000000";
    write_file(step / "80807-myhost_1596659864545103_1596659864854168.metadata", "");
    write_gzip(step / "plugins" / "profile" / "2020_08_05_13_37_44" / "myhost.example.com.trace.json.gz",
               R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
{"ph":"M","pid":49,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":49,"tid":11,"name":"thread_name","args":{"name":"tf_Compute"}},
{"ph":"M","pid":7,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"pid":49,"tid":11,"ts":21307,"name":"ExecutorState::Process","ph":"X","dur":9.9999999999999995e-07,"args":{"iter_num":"0"}},
{"pid":7,"tid":2,"ts":21300.5,"name":"kernel","ph":"X","dur":3},
{}]})");
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    ASSERT_TRUE(r.complete()) << (r.skipped.empty() ? "" : r.skipped[0].reason);
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[0].name, "kernel");
    EXPECT_EQ(x[0].pid, 50000);
    EXPECT_EQ(thread_name_of(all, 50000, x[0].tid), "myhost_2");
    EXPECT_EQ(x[1].pid, 60000);
    EXPECT_EQ(x[1].ts, 1596659864545103 + 21307);
    EXPECT_EQ(thread_name_of(all, 60000, x[1].tid), "myhost_tf_Compute");
    // Floats print as Python does: smdebug's readers see the same text.
    const std::string text = read_text(r.output_path);
    EXPECT_NE(text.find("\"ts\": 1596659864566403.5"), std::string::npos);
    EXPECT_NE(text.find("\"dur\": 1e-06"), std::string::npos);
}

TEST(MergeSources, RingprofTraceWithAbsoluteOrRelativeTimes) {
    TempDir dir;
    const auto folder = dir.path() / "framework" / "pevents" / "2020071317";
    // Absolute µs, no base anywhere.
    write_gzip(folder / "1000300_3-hostA_trace.json.gz",
               R"({"displayTimeUnit":"ns","traceEvents":[
{"name":"process_name","ph":"M","pid":1,"args":{"name":"ringprof"}},
{"name":"thread_name","ph":"M","pid":1,"tid":4,"args":{"name":"main"}},
{"name":"train_step","ph":"X","pid":1,"tid":4,"ts":1000100,"dur":200},
{"name":"tick","ph":"C","pid":1,"ts":1000150,"args":{"value":1}}]})");
    // Relative µs with the base written after the events.
    write_gzip(folder / "1000400_3-hostB_trace.json.gz",
               R"({"displayTimeUnit":"ns","traceEvents":[
{"name":"process_name","ph":"M","pid":1,"args":{"name":"ringprof"}},
{"name":"env_step","ph":"X","pid":1,"tid":9,"ts":150,"dur":100}],
"otherData":{"start_time_since_epoch_in_micros":1000000}})");
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    ASSERT_TRUE(r.complete());
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[0].name, "train_step");
    EXPECT_EQ(x[0].ts, 1000100);
    EXPECT_EQ(x[1].name, "env_step");
    EXPECT_EQ(x[1].ts, 1000150);
    EXPECT_EQ(x[0].pid, x[1].pid);  // same phase name, one process
    EXPECT_NE(x[0].tid, x[1].tid);
    EXPECT_EQ(thread_name_of(all, x[0].pid, x[0].tid), "3-hostA_main");
    EXPECT_EQ(thread_name_of(all, x[1].pid, x[1].tid), "3-hostB_9");
}

}  // namespace
