// Each output problem is reported once per folder (one line naming the folder and the reason),
// and once more for each new problem: not once per output file or per snapshot.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bounded_process.hpp"
#include "process/output_problems.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

namespace ringprof::testing {
namespace {

// Records with every backend and periodic flushes into `dir`; exit status 0 if every scope was
// kept in memory although no file could be written.
int record_into(const std::string& dir) {
    set_env("RINGPROF_OUTPUT_DIR", dir);
    set_env("RINGPROF_RUN_ID", "blocked");
    set_env("RINGPROF_FLUSH_INTERVAL_MS", "20");
    for (int i = 0; i < 200; ++i) {
        { PROF_SCOPE("work"); }
        if (i % 20 == 0) ringprof::flush();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const Snapshot s = Session::current()->snapshot();
    const TimerNode* work = s.tree.root.find("work");
    return work != nullptr && work->count == 200 ? 0 : 7;
}

// CI runs as root, which may write anywhere: the scenario drops to nobody first.
bool become_nobody() {
    if (::geteuid() != 0) return true;
    return ::setgroups(0, nullptr) == 0 && ::setresgid(65534, 65534, 65534) == 0 &&
           ::setresuid(65534, 65534, 65534) == 0;
}

TEST(OutputProblems, AnUnwritableFolderIsReportedOnceAsAnUnprivilegedUser) {
    char tmpl[] = "/tmp/ringprof_unwritable_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);  // owned by this user: only root could write
    TempDir logs;
    const std::string err_path = logs.str() + "/stderr.txt";
    const Outcome o = run_bounded([&] { return become_nobody() ? record_into(dir) : 9; }, stderr_to(err_path));
    const std::string err = read_text(err_path);
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << "recording must go on in memory\n" << err;
    EXPECT_EQ(lines_naming(err, "'" + dir + "'"), 1) << err;
    EXPECT_NE(err.find("Permission denied"), std::string::npos) << err;
    EXPECT_EQ(lines_naming(err, "ringprof"), 1) << "one line in all:\n" << err;
}

TEST(OutputProblems, AFolderThatCannotBeCreatedIsReportedOnce) {
    TempDir dir;
    const std::string blocker = dir.str() + "/a_file";
    { std::ofstream(blocker) << "x"; }
    const std::string err_path = dir.str() + "/stderr.txt";
    const Outcome o = run_bounded([&] { return record_into(blocker + "/sub"); }, stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    EXPECT_EQ(o.exit_code, 0) << err;
    EXPECT_EQ(lines_naming(err, "ringprof"), 1) << err;
    EXPECT_EQ(lines_naming(err, blocker + "/sub"), 1) << err;
}

TEST(OutputProblems, ANewProblemInTheSameFolderIsReportedOnceMore) {
    detail::OutputProblems problems("/out");
    ::testing::internal::CaptureStderr();
    EXPECT_TRUE(problems.report("timers", "write", output_error("cannot create", "/out/a_timers.json.1.tmp", EACCES)));
    EXPECT_FALSE(problems.report("stats", "write", output_error("cannot create", "/out/a_stats.json.1.tmp", EACCES)));
    EXPECT_FALSE(problems.report("pythontimeline", "spans",
                                 output_error("cannot create output folder", "/out/framework", EACCES)));
    EXPECT_TRUE(problems.report("trace", "spans", output_error("cannot write", "/out/a_trace.json.gz", ENOSPC)));
    EXPECT_FALSE(problems.report("timers", "write", output_error("cannot write", "/out/a_timers.json.1.tmp", ENOSPC)));
    EXPECT_TRUE(problems.report("elsewhere", "write", output_error("cannot create", "/other/x", EACCES)));
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(lines_naming(err, "ringprof: output folder '/out': Permission denied"), 1) << err;
    EXPECT_EQ(lines_naming(err, "ringprof: output folder '/out': No space left on device"), 1) << err;
    EXPECT_EQ(lines_naming(err, "ringprof: output folder '/other': Permission denied"), 1) << err;
    EXPECT_EQ(lines_naming(err, "ringprof"), 3) << err;
}

}  // namespace
}  // namespace ringprof::testing
