// Bad inputs: each is skipped whole with one message naming it; the rest still merges, and no
// partial output is ever left behind.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;

namespace {

std::string good_timeline() {
    return smdebug_timeline(kBase, {{"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", 10, 5, R"({"step_num": "0"})"}});
}

// Merges a folder with one good file plus `bad`; returns the reason given for `bad`.
std::string reason_for(const fs::path& root, const fs::path& bad) {
    write_file(pevents_file(root, kBase + 20, "1-good", "pythontimeline.json"), good_timeline());
    const auto r = MergedTimeline(root.string()).merge_all();
    EXPECT_FALSE(r.complete());
    EXPECT_EQ(only_x(read_output(r.output_path)).size(), 1u) << "the good file still merges";
    for (const auto& e : fs::recursive_directory_iterator(root))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
    EXPECT_EQ(r.skipped.size(), 1u);
    for (const auto& s : r.skipped) {
        if (s.path == bad.string()) return s.reason;
    }
    ADD_FAILURE() << bad << " not reported";
    return {};
}

TEST(MergeBadInput, TruncatedJsonSkipsTheWholeFile) {
    TempDir dir;
    const std::string full = smdebug_timeline(kBase, {{"Forward", "a", 1, 2, ""}, {"Forward", "b", 3, 4, ""}});
    const auto bad = pevents_file(dir.path(), kBase + 10, "2-cut", "pythontimeline.json");
    write_file(bad, full.substr(0, full.size() - 30));
    EXPECT_NE(reason_for(dir.path(), bad).find("truncated"), std::string::npos);
}

TEST(MergeBadInput, CorruptJsonInsideAnEvent) {
    TempDir dir;
    const auto bad = pevents_file(dir.path(), kBase + 10, "2-bad", "model_timeline.json");
    write_file(bad, R"([{"name": "a", "ph": "X", "pid": 1, "ts": 1, "dur": 2, "cat": tru}])");
    EXPECT_NE(reason_for(dir.path(), bad).find("invalid JSON in event #0"), std::string::npos);
}

TEST(MergeBadInput, MissingCommaBetweenEvents) {
    TempDir dir;
    const auto bad = pevents_file(dir.path(), kBase + 10, "2-bad", "model_timeline.json");
    write_file(bad, R"([{"ph": "X"} {"ph": "X"}])");
    EXPECT_NE(reason_for(dir.path(), bad).find("expected ','"), std::string::npos);
}

TEST(MergeBadInput, TruncatedGzip) {
    TempDir dir;
    const auto bad = pevents_file(dir.path(), kBase + 10, "2-gz", "trace.json.gz");
    std::string events = R"({"traceEvents":[)";
    for (int i = 0; i < 200; ++i)
        events += R"({"name":"e","ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(kBase + i) + R"(,"dur":1},)";
    events += "{}]}";
    write_gzip(bad, events);
    const std::string bytes = read_text(bad.string());
    write_file(bad, bytes.substr(0, bytes.size() / 2));
    EXPECT_NE(reason_for(dir.path(), bad).find("truncated gzip"), std::string::npos);
}

TEST(MergeBadInput, UnknownSuffix) {
    TempDir dir;
    const auto bad = pevents_file(dir.path(), kBase + 10, "2-x", "mystery_timeline.json");
    write_file(bad, "[]");
    EXPECT_NE(reason_for(dir.path(), bad).find("unknown suffix"), std::string::npos);
}

TEST(MergeBadInput, FileNameWithoutTimestamp) {
    TempDir dir;
    const auto bad = dir.path() / "framework" / "pevents" / "2020071317" / "latest_node_pythontimeline.json";
    write_file(bad, good_timeline());
    EXPECT_NE(reason_for(dir.path(), bad).find("no timestamp"), std::string::npos);
}

TEST(MergeBadInput, TensorFlowTraceWithoutMarker) {
    TempDir dir;
    const auto bad = dir.path() / "framework" / "tensorflow" / "detailed_profiling" / "2020080513" / "000000000" /
                     "plugins" / "profile" / "x" / "h.trace.json.gz";
    write_gzip(bad, R"({"traceEvents":[]})");
    EXPECT_NE(reason_for(dir.path(), bad).find(".metadata marker"), std::string::npos);
}

#ifdef RINGPROF_TOOL
// Root reads every folder, and CI runs as root: the merge then runs as the unprivileged user
// `nobody` (setpriv), through the CLI, under a deadline.
void open_to_everyone(const fs::path& root) {
    const auto readable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec;
    fs::permissions(root, readable);
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (e.is_directory()) fs::permissions(e.path(), readable);
    }
}

std::string merge_as_nobody(const fs::path& root, const fs::path& out, int& exit_code) {
    fs::create_directories(out);
    fs::permissions(out, fs::perms::all);
    const fs::path err = out / "stderr.txt";
    const std::string cmd = "timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups " +
                            std::string(RINGPROF_TOOL) + " merge " + root.string() + " -o " + out.string() + " 2>" +
                            err.string();
    const int status = std::system(cmd.c_str());
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return read_text(err.string());
}
#endif

TEST(MergeBadInput, UnreadableFolder) {
    TempDir dir;
    const auto locked = dir.path() / "framework" / "pevents" / "locked";
    write_file(locked / (std::to_string(kBase) + "_3-z_pythontimeline.json"), good_timeline());
    if (::geteuid() != 0) {
        fs::permissions(locked, fs::perms::none);
        EXPECT_NE(reason_for(dir.path(), locked).find("cannot list folder"), std::string::npos);
        fs::permissions(locked, fs::perms::owner_all);
        return;
    }
#ifdef RINGPROF_TOOL
    write_file(pevents_file(dir.path(), kBase + 20, "1-good", "pythontimeline.json"), good_timeline());
    open_to_everyone(dir.path());
    int code = -1;
    const std::string open_err = merge_as_nobody(dir.path(), dir.path() / "out_open", code);
    ASSERT_EQ(code, 0) << "setpriv or the tool failed before the folder was locked: " << open_err;
    fs::permissions(locked, fs::perms::none);
    const std::string err = merge_as_nobody(dir.path(), dir.path() / "out_locked", code);
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_EQ(code, 3) << err;  // merged, but an input was skipped
    EXPECT_NE(err.find("skipped " + locked.string() + ": cannot list folder"), std::string::npos) << err;
    EXPECT_NE(err.find("1 skipped"), std::string::npos) << err;
#else
    GTEST_SKIP() << "running as root without the ringprof tool: nothing can show an unreadable folder";
#endif
}

TEST(MergeBadInput, MalformedEventsAreDroppedAndCounted) {
    TempDir dir;
    write_file(
        pevents_file(dir.path(), kBase + 10, "2-m", "model_timeline.json"),
        R"([{"name": "ok", "ph": "X", "pid": 1, "ts": 5, "dur": 1}, {"name": "no-dur", "ph": "X", "pid": 1, "ts": 5}])");
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    EXPECT_EQ(r.events_dropped, 1u);
    EXPECT_FALSE(r.complete());
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("2-m_model_timeline.json"), std::string::npos);
    EXPECT_EQ(only_x(read_output(r.output_path)).size(), 1u);
}

TEST(MergeBadInput, MissingFrameworkFolderIsAnError) {
    TempDir dir;
    EXPECT_THROW(MergedTimeline(dir.path().string()).merge_all(), ringprof::MergeError);
}

TEST(MergeBadInput, CorruptFileRolledBackAfterSpilling) {
    TempDir dir;
    std::string big = smdebug_timeline(kBase, {});
    big.resize(big.size() - 3);  // reopen the array
    for (int i = 0; i < 500; ++i)
        big += ",\n{\"name\": \"e\", \"pid\": 0, \"ph\": \"X\", \"ts\": " + std::to_string(i) + ", \"dur\": 1}";
    big += ",\n{\"name\": \"broken\"";  // cut mid-event, after many events were already stored
    const auto bad = pevents_file(dir.path(), kBase + 600, "2-big", "model_timeline.json");
    write_file(bad, big);
    write_file(pevents_file(dir.path(), kBase + 20, "1-good", "pythontimeline.json"), good_timeline());
    MergedTimeline merger(dir.path().string());
    merger.set_memory_budget(1);
    merger.set_temp_dir(dir.path().string());
    const auto r = merger.merge_all();
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(r.skipped[0].path, bad.string());
    EXPECT_EQ(only_x(read_output(r.output_path)).size(), 1u);
}

}  // namespace
