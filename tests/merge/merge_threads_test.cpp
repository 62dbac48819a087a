// Reading files on several threads changes nothing in the answer: the merged file, the counts,
// the skipped files and the notes are the same for every reader thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;
using ringprof::MergeResult;

namespace {

// Enough files, events and bytes that every reader sends several batches per file and readers
// overtake each other: a truncated file mid-way (rolled back), a trace whose base comes after its
// events (read twice), equal start times across files (order decided by reading order), B/E pairs.
void write_many_files(const fs::path& root) {
    for (int node = 0; node < 12; ++node) {
        const std::string host = std::to_string(900 + node) + "-host" + std::to_string(node);
        std::vector<PhaseEvent> py, model;
        for (int s = 0; s < 300; ++s) {
            py.push_back({"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", 1000 + s * 500, 480,
                          R"({"step_num": ")" + std::to_string(s) + R"(", "note": "caf\u00e9"})"});
            for (int k = 0; k < 20; ++k)
                model.push_back(
                    {k % 2 ? "DataIterator" : "Forward", "op" + std::to_string(k), 1000 + s * 500 + k * 3, k % 5, ""});
        }
        write_file(pevents_file(root, kBase + 200000 + node, host, "pythontimeline.json"),
                   smdebug_timeline(kBase + node, py));
        std::string text = smdebug_timeline(kBase, model);
        if (node == 5) text.resize(text.size() / 2);  // truncated: skipped whole
        write_file(pevents_file(root, kBase + 200000 + node, host, "model_timeline.json"), text);
    }
    std::string horovod =
        R"([{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": )" +
        std::to_string(kBase) + "}},\n" +
        R"({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Horovod"}})";
    for (int i = 0; i < 2000; ++i) {
        horovod +=
            ",\n{\"name\": \"ALLREDUCE\", \"ph\": \"B\", \"ts\": " + std::to_string(1000 + i * 50) + ", \"pid\": 1}";
        horovod += ",\n{\"ph\": \"E\", \"ts\": " + std::to_string(1000 + i * 50 + 20) + ", \"pid\": 1}";
    }
    write_file(pevents_file(root, kBase + 200100, "77-hvd", "horovod_timeline.json"), horovod + "]");
    std::string trace = R"({"traceEvents":[{"name":"process_name","ph":"M","pid":1,"args":{"name":"ringprof"}})";
    for (int i = 0; i < 3000; ++i)
        trace += R"(,{"name":"late_base","ph":"X","pid":1,"tid":)" + std::to_string(i % 3) + R"(,"ts":)" +
                 std::to_string(1000 + i * 7) + R"(,"dur":2.5})";
    trace += R"(],"otherData":{"start_time_since_epoch_in_micros":)" + std::to_string(kBase) + "}}";
    write_gzip(
        root / "framework" / "pevents" / "2020071317" / (std::to_string(kBase + 200200) + "_3-hostT_trace.json.gz"),
        trace);
}

struct Answer {
    MergeResult result;
    std::string bytes;
};

Answer merge_with(const fs::path& root, unsigned threads, bool ranged) {
    MergedTimeline merger(root.string(), {}, (root / ("out" + std::to_string(threads))).string());
    merger.set_node_id("node");
    merger.set_reader_threads(threads);
    Answer a;
    a.result = ranged ? merger.merge_timeline(kBase + 20000, kBase + 60000) : merger.merge_all();
    a.bytes = read_text(a.result.output_path);
    return a;
}

void expect_same(const Answer& one, const Answer& many, unsigned threads) {
    EXPECT_TRUE(one.bytes == many.bytes) << threads << " reader threads wrote a different file";
    EXPECT_EQ(one.result.events_written, many.result.events_written);
    EXPECT_EQ(one.result.files_merged, many.result.files_merged);
    EXPECT_EQ(one.result.events_dropped, many.result.events_dropped);
    ASSERT_EQ(one.result.skipped.size(), many.result.skipped.size());
    for (std::size_t i = 0; i < one.result.skipped.size(); ++i) {
        EXPECT_EQ(one.result.skipped[i].path, many.result.skipped[i].path);
        EXPECT_EQ(one.result.skipped[i].reason, many.result.skipped[i].reason);
    }
    EXPECT_EQ(one.result.notes, many.result.notes);
}

TEST(MergeThreads, EveryReaderThreadCountWritesTheSameFile) {
    TempDir dir;
    write_many_files(dir.path());
    const Answer one = merge_with(dir.path(), 1, false);
    // The reference answer itself: the truncated file is skipped and every other event is there
    // once, in time order.
    ASSERT_EQ(one.result.skipped.size(), 1u);
    EXPECT_NE(one.result.skipped[0].path.find("model_timeline"), std::string::npos);
    const auto x = only_x(read_output(one.result.output_path));
    EXPECT_EQ(x.size(), 12u * 300 + 11u * 300 * 20 + 2000 + 3000);
    EXPECT_EQ(x.size(), one.result.events_written);
    EXPECT_TRUE(std::is_sorted(x.begin(), x.end(), [](const OutEvent& a, const OutEvent& b) { return a.ts < b.ts; }));
    for (unsigned threads : {2u, 3u, 8u}) expect_same(one, merge_with(dir.path(), threads, false), threads);
}

TEST(MergeThreads, EveryReaderThreadCountWritesTheSameRange) {
    TempDir dir;
    write_many_files(dir.path());
    const Answer one = merge_with(dir.path(), 1, true);
    const auto x = only_x(read_output(one.result.output_path));
    ASSERT_FALSE(x.empty());
    for (const auto& e : x) {
        EXPECT_LE(e.ts, kBase + 60000);
        EXPECT_GE(e.ts + e.dur, kBase + 20000);
    }
    for (unsigned threads : {2u, 8u}) expect_same(one, merge_with(dir.path(), threads, true), threads);
}

// A batch is a fixed chunk of text: an event larger than what is left of it (or than a whole
// chunk) grows that batch beyond its chunk, and the store then holds blocks of both kinds,
// spilled or not. Every such event comes out whole, among the others, in order.
TEST(MergeThreads, EventsLargerThanABatchChunkComeOutWhole) {
    TempDir dir;
    std::vector<PhaseEvent> events;
    std::vector<std::string> big_names;
    for (int i = 0; i < 4000; ++i) {
        std::string name = "op" + std::to_string(i);
        if (i % 1000 == 500) {
            name = std::string(static_cast<std::size_t>(100000 * (i / 1000 + 1)), static_cast<char>('a' + i / 1000));
            big_names.push_back(name);
        }
        std::string args;
        if (i == 1700) args = R"({"note": ")" + std::string(300000, 'n') + R"("})";
        events.push_back({"Forward", name, 1000 + i * 10, 5, args});
    }
    write_file(pevents_file(dir.path(), kBase + 100000, "1-a", "pythontimeline.json"), smdebug_timeline(kBase, events));
    for (std::size_t budget : {std::size_t{256} << 20, std::size_t{1} << 20}) {  // in memory, then spilled
        for (unsigned threads : {1u, 2u}) {
            MergedTimeline merger(dir.path().string(), {}, (dir.path() / "out").string());
            merger.set_reader_threads(threads);
            merger.set_memory_budget(budget);
            const MergeResult r = merger.merge_all();
            ASSERT_TRUE(r.complete()) << budget << " " << threads;
            const auto x = only_x(read_output(r.output_path));
            ASSERT_EQ(x.size(), events.size());
            std::size_t big = 0;
            for (std::size_t i = 0; i < x.size(); ++i) {
                EXPECT_EQ(x[i].name, events[i].name) << "event " << i;
                EXPECT_EQ(x[i].ts, static_cast<double>(kBase + events[i].ts));
                if (x[i].name.size() > 1000) ++big;
            }
            EXPECT_EQ(big, big_names.size());
            EXPECT_TRUE(x[1700].args_json == R"({"note":")" + std::string(300000, 'n') + R"("})");
        }
    }
}

}  // namespace

namespace {

// Files are stored largest first, yet events of equal start keep smdebug's reading order:
// pythontimeline before model_timeline, whatever their sizes or the reader count.
TEST(MergeStoringOrder, TiesFollowReadingOrderWhenALaterFileIsLargerAndStoredFirst) {
    TempDir tmp;
    const fs::path root = tmp.path();
    std::vector<PhaseEvent> py{{"Step:ModeKeys.TRAIN", "py_tie", 5000, 10, ""}};
    std::vector<PhaseEvent> model;
    for (int k = 0; k < 3000; ++k) model.push_back({"Forward", "filler" + std::to_string(k), 10000 + k, 1, ""});
    model.push_back({"Forward", "model_tie", 5000, 10, ""});
    write_file(pevents_file(root, kBase + 200000, "1-host", "pythontimeline.json"), smdebug_timeline(kBase, py));
    write_file(pevents_file(root, kBase + 200000, "1-host", "model_timeline.json"), smdebug_timeline(kBase, model));
    ASSERT_GT(fs::file_size(pevents_file(root, kBase + 200000, "1-host", "model_timeline.json")),
              fs::file_size(pevents_file(root, kBase + 200000, "1-host", "pythontimeline.json")));
    for (unsigned threads : {1u, 2u}) {
        const Answer a = merge_with(root, threads, false);
        const auto x = only_x(read_output(a.result.output_path));
        ASSERT_GE(x.size(), 2u);
        EXPECT_EQ(x[0].name, "py_tie") << threads << " reader(s)";
        EXPECT_EQ(x[1].name, "model_tie") << threads << " reader(s)";
        EXPECT_EQ(x[0].ts, x[1].ts);
    }
}

}  // namespace
