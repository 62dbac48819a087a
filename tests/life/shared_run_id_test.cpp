// Processes sharing a run id (ranks launched with one RINGPROF_RUN_ID) never corrupt each
// other's files: the first keeps the run id, each other writes as "<run_id>_<pid>", and says so
// in one message.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bounded_process.hpp"
#include "held_ringprof_threads.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

namespace ringprof::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 4;
const char* const kRankScopes[kRanks] = {"rank_0", "rank_1", "rank_2", "rank_3"};

void rank_work(int rank) {
    for (long i = 0; i < scaled(20000); ++i) {
        switch (rank) {
            case 0: {
                PROF_SCOPE("rank_0");
                break;
            }
            case 1: {
                PROF_SCOPE("rank_1");
                break;
            }
            case 2: {
                PROF_SCOPE("rank_2");
                break;
            }
            default: {
                PROF_SCOPE("rank_3");
                break;
            }
        }
    }
}

// Four processes start together with one environment and overlap for their whole run.
int launch_ranks(const std::string& dir) {
    set_env("RINGPROF_OUTPUT_DIR", dir);
    set_env("RINGPROF_RUN_ID", "shared");
    int go[2];
    if (::pipe(go) != 0) return 10;
    for (int rank = 0; rank < kRanks; ++rank) {
        if (::fork() == 0) {
            ::close(go[1]);
            char c;
            while (::read(go[0], &c, 1) > 0) {
            }
            rank_work(rank);
            ringprof::flush();
            std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all still running
            rank_work(rank);
            std::exit(0);
        }
    }
    ::close(go[1]);  // starts them all at once
    int failed = 0;
    for (int rank = 0; rank < kRanks; ++rank) {
        int status = 0;
        if (::wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    return failed;
}

TEST(SharedRunId, ProcessesSharingARunIdWriteDistinctWholeFiles) {
    TempDir dir;
    const std::string err_path = dir.str() + "/../SharedRunId_stderr.txt";
    const Outcome o = run_bounded([&] { return launch_ranks(dir.str()); }, stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;

    std::set<std::string> ranks_seen;
    int timers_files = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        const std::string name = e.path().filename().string();
        EXPECT_EQ(name.find(".tmp"), std::string::npos) << "left behind: " << name;
        if (name.find("ringprof_claim") != std::string::npos) {
            // The claim files stay (an exec'd image reads who made them), released: their locks
            // went with their processes.
            const int fd = ::open(e.path().c_str(), O_RDWR | O_CLOEXEC);
            struct flock lock {};
            lock.l_type = F_WRLCK;
            lock.l_whence = SEEK_SET;
            EXPECT_TRUE(fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0) << "a claim still held after its run: " << name;
            if (fd >= 0) ::close(fd);
            continue;
        }
        const std::string suffix = "_timers.json";
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        ++timers_files;
        SCOPED_TRACE(name);
        const std::string run_id = name.substr(0, name.size() - suffix.size());
        EXPECT_TRUE(run_id == "shared" || run_id.rfind("shared_", 0) == 0) << run_id;
        const TimerTree tree = load_timers_json(e.path().string());
        int own = 0;
        for (const char* scope : kRankScopes) {
            if (const TimerNode* n = tree.root.find(scope)) {
                ++own;
                ranks_seen.insert(scope);
                EXPECT_EQ(n->count, static_cast<std::uint64_t>(2 * scaled(20000))) << scope;
            }
        }
        EXPECT_EQ(own, 1) << "each file holds exactly one process's timers";
        const std::string stats = read_text(dir.path() / (run_id + "_stats.json"));
        simdjson::dom::parser parser;
        simdjson::dom::element doc;
        EXPECT_EQ(parser.parse(stats).get(doc), simdjson::SUCCESS) << run_id << "_stats.json is not whole";
        EXPECT_TRUE(fs::exists(dir.path() / (run_id + "_trace.json.gz")));
    }
    EXPECT_EQ(timers_files, kRanks);
    EXPECT_EQ(ranks_seen.size(), static_cast<std::size_t>(kRanks));
    EXPECT_EQ(lines_naming(err, "run id 'shared' is in use"), kRanks - 1) << err;
    EXPECT_EQ(lines_naming(err, "ringprof"), kRanks - 1) << err;
    fs::remove(err_path);
}

// The claim is made as the session starts, not by the drainer: the process whose session started
// first keeps the run id, even while its drainer has not started yet. Here it is held until the
// process the first one told to start has claimed and flushed.
TEST(SharedRunId, AProcessKeepsItsRunIdAgainstOneItTellsToStartAfterItsOwnSessionStarted) {
    TempDir dir;
    const std::string err_path = dir.str() + "/../SharedRunIdOrder_stderr.txt";
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "first");
            int go[2], done[2];
            if (::pipe(go) != 0 || ::pipe(done) != 0) return 10;
            const pid_t later = ::fork();  // before this process's session: it shares the run id
            if (later == 0) {
                char c;
                if (::read(go[0], &c, 1) != 1) std::_Exit(11);
                { PROF_SCOPE("started_later"); }
                ringprof::flush();  // after the drainer's first work: its claim is made
                if (::write(done[1], "x", 1) != 1) std::_Exit(12);
                std::exit(0);
            }
            HeldRingprofThreads held;
            { PROF_SCOPE("started_first"); }
            char c;
            if (::write(go[1], "x", 1) != 1 || ::read(done[0], &c, 1) != 1) return 13;
            held.release();
            int status = 0;
            return ::waitpid(later, &status, 0) == later && WIFEXITED(status) ? WEXITSTATUS(status) : 14;
        },
        stderr_to(err_path));
    const std::string err = read_text(err_path);
    ASSERT_TRUE(o.finished);
    ASSERT_EQ(o.exit_code, 0) << err;
    const TimerTree first = load_timers_json(dir.str() + "/first_timers.json");
    EXPECT_NE(first.root.find("started_first"), nullptr) << "the run id went to the process started later";
    EXPECT_EQ(first.root.find("started_later"), nullptr);
    EXPECT_EQ(lines_naming(err, "run id 'first' is in use"), 1) << err;
    fs::remove(err_path);
}

// A child forked by a process holding the run id does not hold it: once that process has ended,
// the run id is free, even while the child still lives.
TEST(SharedRunId, ARunIdIsFreeOnceItsProcessEndedWhileAChildItForkedLivesOn) {
    TempDir dir;
    int child_waits[2], child_pid[2];
    ASSERT_EQ(::pipe(child_waits), 0);
    ASSERT_EQ(::pipe(child_pid), 0);
    const Outcome holder = run_bounded([&] {
        set_env("RINGPROF_OUTPUT_DIR", dir.str());
        set_env("RINGPROF_RUN_ID", "kept");
        { PROF_SCOPE("holder"); }
        const pid_t child = ::fork();
        if (child == 0) {  // outlives this process (in a group of its own), until the pipe closes
            ::setpgid(0, 0);
            ::close(child_waits[1]);
            char c;
            while (::read(child_waits[0], &c, 1) > 0) {
            }
            std::_Exit(0);
        }
        return ::write(child_pid[1], &child, sizeof child) == sizeof child ? 0 : 10;
    });
    ::close(child_waits[0]);
    pid_t child = -1;
    const bool told = ::read(child_pid[0], &child, sizeof child) == sizeof child;
    ::close(child_pid[0]);
    ::close(child_pid[1]);
    ASSERT_TRUE(holder.finished);
    ASSERT_EQ(holder.exit_code, 0);
    ASSERT_TRUE(told);
    const std::string err_path = dir.str() + "/../SharedRunIdFree_stderr.txt";
    const Outcome later = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "kept");
            { PROF_SCOPE("later"); }
            return 0;
        },
        stderr_to(err_path));
    ::close(child_waits[1]);  // the child ends; this process adopted it
    ::waitpid(child, nullptr, 0);
    ASSERT_TRUE(later.finished);
    const std::string err = read_text(err_path);
    EXPECT_EQ(lines_naming(err, "in use"), 0) << err;
    EXPECT_NE(load_timers_json(dir.str() + "/kept_timers.json").root.find("later"), nullptr)
        << "the run id stayed taken while the holder's child lived";
    fs::remove(err_path);
}

TEST(SharedRunId, ARunIdIsFreeAgainOnceItsProcessHasEnded) {
    TempDir dir;
    for (int run = 0; run < 2; ++run) {
        const Outcome o = run_bounded([&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "again");
            { PROF_SCOPE("once"); }
            return 0;
        });
        ASSERT_TRUE(o.finished);
    }
    int timers_files = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        timers_files += e.path().filename().string().find("_timers.json") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(timers_files, 1) << "a later run with the same id replaces the earlier one's files";
    EXPECT_TRUE(fs::exists(dir.path() / "again_timers.json"));
}

}  // namespace
}  // namespace ringprof::testing
