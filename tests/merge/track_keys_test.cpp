// A track of the merged timeline is one thread (tid) of one process (pid) of one host within one
// phase: two events that differ in any one of those alone land on two tracks, and two events
// that differ in none of them, even read from two files, on one. Read back from the merged file.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;

namespace {

struct Where {
    std::string pid = "11", host = "hosta", phase = "Forward";
    int tid = 5;
    std::string node() const { return pid + "-" + host; }
};

// One pythontimeline file holding one X event of `name` on `w`'s track.
void write_event(const fs::path& root, std::int64_t end_us, const Where& w, const std::string& name, std::int64_t ts) {
    const std::string text =
        "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"start_time_since_epoch_in_micros\": " +
        std::to_string(kBase) + "}},\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"" +
        w.phase + "\"}},\n{\"name\": \"" + name + "\", \"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(w.tid) +
        ", \"ts\": " + std::to_string(ts) + ", \"dur\": 10}\n]\n";
    write_file(pevents_file(root, end_us, w.node(), "pythontimeline.json"), text);
}

struct TrackCase {
    const char* component;
    Where second;
    bool separate;
};

TEST(MergeTrackKeys, HostPidTidOrPhaseAloneMakesATrackAndNoneOfThemDoes) {
    const auto with = [](auto change) {
        Where w;
        change(w);
        return w;
    };
    const TrackCase cases[] = {
        {"nothing (another file of the same process)", Where{}, false},
        {"host", with([](Where& w) { w.host = "hostb"; }), true},
        {"pid", with([](Where& w) { w.pid = "12"; }), true},
        {"tid", with([](Where& w) { w.tid = 6; }), true},
        {"phase", with([](Where& w) { w.phase = "Backward"; }), true},
    };
    for (const TrackCase& c : cases) {
        SCOPED_TRACE(c.component);
        TempDir dir;
        write_event(dir.path(), kBase + 100000, Where{}, "first", 100);
        write_event(dir.path(), kBase + 200000, c.second, "second", 200);
        ringprof::MergedTimeline merger(dir.path().string(), {}, (dir.path() / "out").string());
        const ringprof::MergeResult r = merger.merge_all();
        ASSERT_TRUE(r.complete());
        const auto all = read_output(r.output_path);
        const auto x = only_x(all);
        ASSERT_EQ(x.size(), 2u);
        std::set<std::pair<std::int64_t, std::int64_t>> tracks;
        std::set<std::string> names;
        for (const OutEvent& e : x) {
            tracks.emplace(e.pid, e.tid);
            names.insert(thread_name_of(all, e.pid, e.tid));
        }
        EXPECT_EQ(tracks.size(), c.separate ? 2u : 1u);
        // A host's threads are told apart by name too, and a track has one name.
        EXPECT_EQ(names.size(), c.separate && std::string(c.component) != "phase" ? 2u : 1u);
    }
}

}  // namespace
