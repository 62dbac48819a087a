// The one temporary-then-rename writer (ringprof::AtomicFile) and the one snapshot-file backend
// shape (ringprof::SnapshotFileBackend) that every built-in snapshot output and a user's own
// output share.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/snapshot_file_backend.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof::testing {
namespace {

std::vector<std::string> names_in(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    return names;
}

TEST(AtomicFile, TheFileAppearsOnlyWhenCommittedWithEveryPieceInOrder) {
    TempDir dir;
    const std::string path = dir.str() + "/out.txt";
    const std::string big(3u << 20, 'b');  // larger than the buffer: written around it
    {
        AtomicFile f(path);
        f.write("first,");
        f.write(big);
        for (int i = 0; i < 100000; ++i) f.write("s");
        f.write(",last");
        EXPECT_FALSE(std::filesystem::exists(path)) << "visible before commit()";
        EXPECT_TRUE(std::filesystem::exists(f.temp_path()));
        f.commit();
    }
    EXPECT_EQ(read_text(path), "first," + big + std::string(100000, 's') + ",last");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.txt"}) << "a temporary file was left behind";
}

TEST(AtomicFile, AnUncommittedFileKeepsThePreviousVersionAndLeavesNothingBehind) {
    TempDir dir;
    const std::string path = dir.str() + "/out.txt";
    write_file_atomically(path, "previous");
    {
        AtomicFile f(path);
        f.write("half of a new version");
    }  // an exception between write and commit
    EXPECT_EQ(read_text(path), "previous");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, AFileThatCannotReplaceItsPathNamesThePathAndLeavesNothingBehind) {
    TempDir dir;
    const std::string path = dir.str() + "/taken";
    std::filesystem::create_directories(path + "/inside");  // rename() cannot replace a non-empty folder
    try {
        write_file_atomically(path, "text");
        ADD_FAILURE() << "no error";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
        EXPECT_EQ(e.folder(), dir.str());
    }
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"taken"});
}

TEST(AtomicFile, AFolderThatDoesNotExistIsAnOutputErrorNamingTheFile) {
    TempDir dir;
    const std::string path = dir.str() + "/missing/out.txt";
    try {
        AtomicFile f(path);
        ADD_FAILURE() << "no error";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_EQ(e.reason(), "No such file or directory");
    }
}

TEST(SnapshotFileBackend, AUserBackendWritesEachFileFromItsRenderFunctionLikeTheBuiltIns) {
    TempDir dir;
    // In a child process, like every session here: this process stays without one.
    const Outcome o = run_bounded([&] {
        Config c = ringprof::testing::timers_only(dir, "mine");
        Session session(c);
        session.add_backend(std::make_unique<SnapshotFileBackend>(
            "counts", std::vector<SnapshotFile>{{"_work_count.txt",
                                                 [](const Snapshot& s, const RunInfo& run) {
                                                     const TimerNode* work = s.tree.root.find("work");
                                                     return run.run_id + " " +
                                                            std::to_string(work != nullptr ? work->count : 0);
                                                 }},
                                                {"_timers_copy.json", [](const Snapshot& s, const RunInfo&) {
                                                     return write_timers_json(s.tree, TimersFormat::List);
                                                 }}}));
        for (int i = 0; i < 42; ++i) {
            PROF_SCOPE("work");
        }
        return 0;
    });  // the session's final snapshot
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0);
    EXPECT_EQ(read_text(dir.path() / "mine_work_count.txt"), "mine 42");
    const TimerTree copy = load_timers_json((dir.path() / "mine_timers_copy.json").string());
    const TimerTree builtin = load_timers_json((dir.path() / "mine_timers.json").string());
    ASSERT_NE(copy.root.find("work"), nullptr);
    EXPECT_EQ(copy.root.find("work")->count, 42u);
    ASSERT_NE(builtin.root.find("work"), nullptr);
    EXPECT_EQ(builtin.root.find("work")->count, 42u);
}

}  // namespace
}  // namespace ringprof::testing
