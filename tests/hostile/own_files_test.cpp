// ringprof writes only into files it has just created: what it finds at a name it uses (a
// leftover regular file at a temporary name, a file with other names at the run id's claim) is
// never written into, and the output folder's own path is followed (the user chose it).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "bounded_process.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"
#include "timers_only_config.hpp"

namespace ringprof::testing {
namespace {

namespace fs = std::filesystem;

// Records 10 "work" scopes in a session of its own, in a child process; stderr into `err_path`.
Outcome record_into(const Config& config, const std::string& err_path) {
    return run_bounded(
        [&] {
            const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (fd >= 0) ::dup2(fd, 2);
            {
                Session session(config);
                for (int i = 0; i < 10; ++i) {
                    PROF_SCOPE("work");
                }
            }
            return 0;
        },
        without_exit_handlers(std::chrono::seconds(20)));
}

int work_count(const std::string& timers_path) {
    const TimerTree tree = parse_timers_json(read_text(timers_path));
    const TimerNode* work = tree.root.find("work");
    return work != nullptr ? static_cast<int>(work->count) : -1;
}

TEST(OwnFiles, ALeftoverFileAtTheTemporaryNameIsLeftAsItIsAndAnotherNameIsUsed) {
    TempDir dir;
    const std::string path = dir.str() + "/out.txt";
    const std::string leftover = path + "." + std::to_string(::getpid()) + ".tmp";
    { std::ofstream(leftover) << "another process's half-written file"; }
    write_file_atomically(path, "complete");
    EXPECT_EQ(read_text(path), "complete");
    EXPECT_EQ(read_text(leftover), "another process's half-written file");
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) files += e.path().filename() != "out.txt" ? 1 : 0;
    EXPECT_EQ(files, 1) << "the temporary file of the write itself was left behind";
}

TEST(OwnFiles, AClaimFileWithAnotherNameIsNotWrittenIntoAndRecordingGoesOn) {
    TempDir dir;
    TempDir elsewhere;
    const std::string kept = elsewhere.str() + "/kept.txt";
    { std::ofstream(kept) << "not ringprof's"; }
    const std::string claim = dir.str() + "/.linked.ringprof_claim";
    ASSERT_EQ(::link(kept.c_str(), claim.c_str()), 0);
    const std::string err_path = elsewhere.str() + "/stderr.txt";
    const Outcome o = record_into(timers_only(dir, "linked"), err_path);
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << err;
    EXPECT_EQ(read_text(kept), "not ringprof's");
    EXPECT_EQ(lines_naming(err, "'" + claim + "'"), 1) << err;
    EXPECT_NE(err.find("hard link"), std::string::npos) << err;
    EXPECT_EQ(work_count(dir.str() + "/linked_timers.json"), 10);
}

TEST(OwnFiles, TheOutputFolderMayBeALinkTheUserMade) {
    TempDir dir;
    fs::create_directories(dir.path() / "real");
    fs::create_directory_symlink(dir.path() / "real", dir.path() / "out");
    Config c = timers_only(dir, "through_link");
    c.output_dir = dir.str() + "/out";
    const std::string err_path = dir.str() + "/stderr.txt";
    const Outcome o = record_into(c, err_path);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << read_text(err_path);
    EXPECT_EQ(read_text(err_path), "");
    EXPECT_EQ(work_count(dir.str() + "/real/through_link_timers.json"), 10);
}

// The same rule without a second user: a link at an output name is never followed, whoever made it.
TEST(OwnFiles, ALinkAtAnOutputNameIsLeftAsItIsAndReportedOnceAcrossSnapshots) {
    TempDir dir;
    TempDir elsewhere;
    const std::string kept = elsewhere.str() + "/kept.txt";
    { std::ofstream(kept) << "not ringprof's"; }
    const std::string link = dir.str() + "/linked_stats.txt";
    fs::create_symlink(kept, link);
    Config c = timers_only(dir, "linked");
    c.backends = {"timers", "stats"};
    const std::string err_path = elsewhere.str() + "/stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (fd >= 0) ::dup2(fd, 2);
            Session session(c);
            for (int i = 0; i < 10; ++i) {
                PROF_SCOPE("work");
                flush();  // a snapshot each time: the refusal is still said once
            }
            return 0;
        },
        without_exit_handlers(std::chrono::seconds(20)));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << err;
    EXPECT_EQ(read_text(kept), "not ringprof's");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(lines_naming(err, "'" + link + "'"), 1) << err;
    EXPECT_EQ(lines_naming(err, "ringprof"), 1) << err;
    EXPECT_NE(read_text(dir.str() + "/linked_stats.json").find("work"), std::string::npos);
    EXPECT_EQ(work_count(dir.str() + "/linked_timers.json"), 10);
}

}  // namespace
}  // namespace ringprof::testing
