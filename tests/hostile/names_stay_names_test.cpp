// Names stay names: a run id, a backend's file name or any other name that becomes part of an
// output path never puts a file outside the output folder. A run id that is not a name is refused
// (said once) and the default run id used; any other such name is refused where output paths are
// built (ringprof::output_path) and where files are made (process/safe_files.hpp).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process/safe_files.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/snapshot_file_backend.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"
#include "timers_only_config.hpp"

// A namespace of its own: the test programs are unity builds.
namespace ringprof::testing::names_stay_names {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    return names;
}

const std::vector<std::string> kNotNames = {"../escape", "a/b", "..", ".", "", "/abs", std::string("nul\0x", 5)};

TEST(NamesStayNames, ARunIdThatIsAPathIsRefusedAndEveryOutputStaysInTheOutputFolder) {
    TempDir dir;
    const std::string err_path = dir.str() + "/stderr.txt";
    const std::string out = dir.str() + "/out";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", out);
            set_env("RINGPROF_RUN_ID", "../escape");
            set_env("RINGPROF_TIMELINE_MIN_NS", "0");
            ::unsetenv("RINGPROF_BACKENDS");  // every output
            for (int step = 0; step < 5; ++step) {
                PROF_STEP(step);
                PROF_SCOPE("work");
            }
            return 0;
        },
        stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;
    EXPECT_EQ(names_in(dir.path()).size(), 2u) << "a file outside the output folder\n" << err;  // out, stderr.txt
    EXPECT_EQ(lines_naming(err, "run id '../escape' is not a name"), 1) << err;
    // The default run id took its place: every output written, in the output folder.
    int timers = 0;
    for (const std::string& name : names_in(out)) {
        EXPECT_EQ(name.find("escape"), std::string::npos) << name;
        if (name.size() > 12 && name.compare(name.size() - 12, 12, "_timers.json") == 0) {
            ++timers;
            const TimerTree t = load_timers_json(out + "/" + name);
            ASSERT_NE(t.root.find("work"), nullptr);
        }
    }
    EXPECT_EQ(timers, 1) << err;
}

TEST(NamesStayNames, AUserBackendsFileNameThatIsAPathIsRefusedAndItsOtherFilesWritten) {
    TempDir dir;
    const std::string out = dir.str() + "/out";
    fs::create_directories(out + "/mine_sub");  // "mine_sub/../../escaped.txt" leads out of `out`
    const std::string err_path = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            Config c;
            c.output_dir = out;
            c.run_id = "mine";
            c.backends = {"timers"};
            Session session(c);
            session.add_backend(std::make_unique<SnapshotFileBackend>(
                "user", std::vector<SnapshotFile>{
                            {"_sub/../../escaped.txt", [](const Snapshot&, const RunInfo&) { return "out"; }},
                            {"_kept.txt", [](const Snapshot&, const RunInfo&) { return "kept"; }}}));
            { PROF_SCOPE("work"); }
            return 0;
        },
        stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;
    EXPECT_FALSE(fs::exists(dir.path() / "escaped.txt")) << err;
    EXPECT_EQ(read_text(out + "/mine_kept.txt"), "kept");
    EXPECT_EQ(lines_naming(err, "'mine_sub/../../escaped.txt' is not a file name"), 1) << err;
}

TEST(NamesStayNames, OutputPathsAreBuiltOnlyFromNames) {
    for (const std::string& name : kNotNames) {
        SCOPED_TRACE(name);
        EXPECT_FALSE(why_not_a_name(name).empty());
        EXPECT_THROW(output_path("/out", name), OutputError);
    }
    EXPECT_TRUE(why_not_a_name("run_1.json").empty());
    EXPECT_TRUE(why_not_a_name("..hidden").empty());
    EXPECT_EQ(output_path("/out", "run_trace.json.gz"), "/out/run_trace.json.gz");
}

TEST(NamesStayNames, NoFileOrFolderIsMadeOutsideTheOutputFolderWhateverTheName) {
    TempDir dir;
    fs::create_directories(dir.path() / "out" / "a");
    const detail::OutputFolder folder = detail::OutputFolder::open(dir.str() + "/out");
    for (const std::string& name : kNotNames) {
        SCOPED_TRACE(name);
        std::string made;
        EXPECT_THROW(::close(detail::create_new_file(folder, name, &made)), OutputError);
        EXPECT_THROW(folder.subfolder(name), OutputError);
        bool created = false;
        EXPECT_THROW(::close(detail::open_shared_file(folder, name, &created)), OutputError);
    }
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
    EXPECT_EQ(names_in(dir.path() / "out"), std::vector<std::string>{"a"});
    EXPECT_TRUE(names_in(dir.path() / "out" / "a").empty());
}

}  // namespace
}  // namespace ringprof::testing::names_stay_names
