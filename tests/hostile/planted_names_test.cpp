// A shared, world-writable output folder (the /tmp case: sticky, writable by everyone) where
// another user who can guess the run id and the pid plants links and FIFOs at the names ringprof
// will write. The program runs as root, who could write anywhere; the other user is `nobody`,
// who owns the shared folder, so the kernel's protected_symlinks / protected_fifos settings do
// not stand in the way and only ringprof's own rule is tested. Whatever is planted is left as it
// is, nothing is written through it, nothing blocks, each refusal is one stderr line naming it,
// and the other outputs are written.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "pythontimeline_backend.hpp"
#include "ringprof/output_files.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "text_lines.hpp"

namespace ringprof::testing {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;
constexpr const char* kPrecious = "precious, writable by root alone\n";

bool become_nobody() {
    return ::setgroups(0, nullptr) == 0 && ::setresgid(kNobody, kNobody, kNobody) == 0 &&
           ::setresuid(kNobody, kNobody, kNobody) == 0;
}

// Runs `act` as nobody in a child process; whether it succeeded.
bool as_nobody(const std::function<bool()>& act) {
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child == 0) ::_exit(become_nobody() && act() ? 0 : 1);
    int status = 0;
    return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string hour_name(std::time_t t) {
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y%m%d%H", &tm);
    return buf;
}

std::string host() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

struct VictimRun {
    pid_t pid = 0;
    bool planted = false;
    bool finished = false;  // false: killed at the deadline (it hung)
    int exit_code = -1;
    std::string err;
};

// The shared folder (nobody's, mode 1777) and a root-only folder holding the file an attack
// would clobber.
class Planted : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run the program and the other user (nobody)";
        char shared[] = "/tmp/ringprof_shared_XXXXXX";
        char victim[] = "/tmp/ringprof_victim_XXXXXX";
        ASSERT_NE(::mkdtemp(shared), nullptr);
        shared_ = shared;
        ASSERT_NE(::mkdtemp(victim), nullptr);
        victim_ = victim;
        ASSERT_EQ(::chown(shared, kNobody, kNobody), 0);
        ASSERT_EQ(::chmod(shared, 01777), 0);
        ASSERT_EQ(::chmod(victim, 0700), 0);
        precious_ = victim_ + "/precious";
        { std::ofstream(precious_) << kPrecious; }
        ASSERT_EQ(::chmod(precious_.c_str(), 0600), 0);
    }
    void TearDown() override {
        std::error_code ec;
        if (!shared_.empty()) fs::remove_all(shared_, ec);
        if (!victim_.empty()) fs::remove_all(victim_, ec);
    }

    // Forks the program, lets nobody plant with `plant(pid)` (the program's pid is guessable),
    // then lets the program record a few steps with every output and exit. Bounded.
    VictimRun run_victim(const std::function<bool(pid_t)>& plant) {
        TempDir logs;
        const std::string err_path = logs.str() + "/stderr.txt";
        int go[2];
        if (::pipe(go) != 0) return {};
        std::fflush(nullptr);
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(go[1]);
            char c = 0;
            if (::read(go[0], &c, 1) != 1 || c != 'g') ::_exit(96);
            const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
            if (fd >= 0) ::dup2(fd, 2);
            ::setenv("RINGPROF_OUTPUT_DIR", shared_.c_str(), 1);
            ::setenv("RINGPROF_RUN_ID", "victim", 1);
            ::setenv("RINGPROF_TIMELINE_MIN_NS", "0", 1);
            ::unsetenv("RINGPROF_BACKENDS");
            for (int step = 0; step < 20; ++step) {
                PROF_STEP(step);
                PROF_SCOPE("work");
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
            std::exit(0);  // the exit handler writes the final outputs
        }
        ::close(go[0]);
        VictimRun out;
        out.pid = child;
        out.planted = child > 0 && as_nobody([&] { return plant(child); });
        const char c = out.planted ? 'g' : 'x';
        if (::write(go[1], &c, 1) != 1) out.planted = false;
        ::close(go[1]);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        for (int status = 0;;) {
            const pid_t done = ::waitpid(child, &status, WNOHANG);
            if (done == child) {
                out.finished = true;
                out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                break;
            }
            if (done < 0) break;
            if (std::chrono::steady_clock::now() > give_up) {
                ::kill(child, SIGKILL);
                ::waitpid(child, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        out.err = read_text(err_path);
        return out;
    }

    // Creates the folders of `name` (nobody's own, as an attacker would) and a link there.
    bool plant_link(const std::string& name, const std::string& target) const {
        std::error_code ec;
        fs::create_directories(fs::path(shared_ + "/" + name).parent_path(), ec);
        return !ec && ::symlink(target.c_str(), (shared_ + "/" + name).c_str()) == 0;
    }
    bool plant_fifo(const std::string& name) const { return ::mkfifo((shared_ + "/" + name).c_str(), 0666) == 0; }

    bool link_left_as_it_is(const std::string& name, const std::string& target) const {
        std::error_code ec;
        return fs::is_symlink(shared_ + "/" + name, ec) && fs::read_symlink(shared_ + "/" + name, ec) == target;
    }

    std::vector<std::string> victim_folder() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(victim_)) names.push_back(e.path().filename().string());
        return names;
    }

    // The timers file is written and holds every step's scope; when it is the planted name, the
    // folded stacks instead.
    void expect_other_outputs(const std::string& planted) const {
        if (planted.find("_timers.json") == std::string::npos) {
            const TimerTree t = parse_timers_json(read_text(shared_ + "/victim_timers.json"));
            const TimerNode* work = t.root.find("work");
            ASSERT_NE(work, nullptr) << "no timers written";
            EXPECT_EQ(work->count, 20);
        } else {
            EXPECT_NE(read_text(shared_ + "/victim_folded.txt").find("work"), std::string::npos);
        }
    }

    void expect_refused_link(const std::string& name, const std::string& target, const VictimRun& r,
                             const std::vector<std::string>& named = {}) {
        ASSERT_TRUE(r.planted);
        ASSERT_TRUE(r.finished) << "hung";
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(read_text(precious_), kPrecious) << "written through the link at " << name;
        EXPECT_EQ(victim_folder(), std::vector<std::string>{"precious"}) << "written into the linked folder";
        EXPECT_TRUE(link_left_as_it_is(name, target)) << name;
        int lines = 0;
        for (const std::string& n : named.empty() ? std::vector<std::string>{name} : named) {
            lines += lines_naming(r.err, "'" + shared_ + "/" + n + "'");
        }
        EXPECT_EQ(lines, 1) << "one line naming " << name << ":\n" << r.err;
        EXPECT_EQ(lines_naming(r.err, "ringprof"), 1) << "one line in all:\n" << r.err;
        expect_other_outputs(name);
    }

    std::string shared_;
    std::string victim_;
    std::string precious_;
};

// Every file name ringprof writes in the output folder, final and temporary ("%p" is the pid).
class PlantedFileLink : public Planted, public ::testing::WithParamInterface<const char*> {};

std::string with_pid(std::string name, pid_t pid) {
    const auto at = name.find("%p");
    if (at != std::string::npos) name.replace(at, 2, std::to_string(pid));
    return name;
}

TEST_P(PlantedFileLink, IsLeftAsItIsAndReportedAndNothingIsWrittenThroughIt) {
    const VictimRun r = run_victim([&](pid_t pid) { return plant_link(with_pid(GetParam(), pid), precious_); });
    expect_refused_link(with_pid(GetParam(), r.pid), precious_, r);
}

INSTANTIATE_TEST_SUITE_P(EveryOutputName, PlantedFileLink,
                         ::testing::Values("victim_trace.json.gz", "victim_trace.json.gz.%p.tmp", "victim_timers.json",
                                           "victim_timers.json.%p.tmp", "victim_stats.json", "victim_stats.json.%p.tmp",
                                           "victim_stats.txt", "victim_stats.txt.%p.tmp", "victim_flame.html",
                                           "victim_flame.html.%p.tmp", "victim_flame.svg", "victim_flame.svg.%p.tmp",
                                           "victim_folded.txt", "victim_folded.txt.%p.tmp", ".victim.ringprof_claim"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                             std::string n;
                             for (const char* p = param.param; *p != 0; ++p) {
                                 if (std::isalnum(static_cast<unsigned char>(*p))) n += *p;
                             }
                             return n;
                         });

TEST_F(Planted, ALinkAtThePythontimelineTemporaryFileIsLeftAsItIs) {
    const auto name = [](pid_t pid) {
        return "framework/" + backends::PythonTimelineBackend::node_id(pid, host()) + "_pythontimeline.json.tmp";
    };
    const VictimRun r = run_victim([&](pid_t pid) { return plant_link(name(pid), precious_); });
    expect_refused_link(name(r.pid), precious_, r);
}

TEST_F(Planted, AFrameworkLinkToARootOnlyFolderGetsNothingWrittenIntoIt) {
    const VictimRun r = run_victim([&](pid_t) { return plant_link("framework", victim_); });
    expect_refused_link("framework", victim_, r);
}

TEST_F(Planted, APeventsLinkToARootOnlyFolderGetsNothingWrittenIntoIt) {
    const VictimRun r = run_victim([&](pid_t) { return plant_link("framework/pevents", victim_); });
    expect_refused_link("framework/pevents", victim_, r);
}

TEST_F(Planted, AnHourFolderLinkToARootOnlyFolderGetsNothingWrittenIntoIt) {
    // The hour the files will be named after; the next one too, in case the run crosses it.
    const std::time_t now = std::time(nullptr);
    const std::string hours[] = {"framework/pevents/" + hour_name(now), "framework/pevents/" + hour_name(now + 3600)};
    const VictimRun r =
        run_victim([&](pid_t) { return plant_link(hours[0], victim_) && plant_link(hours[1], victim_); });
    const std::string used = hours[lines_naming(r.err, "'" + shared_ + "/" + hours[1] + "'") == 1 ? 1 : 0];
    expect_refused_link(used, victim_, r, {hours[0], hours[1]});
}

// A FIFO opened for writing blocks until a reader comes: at the trace name it held the first
// PROF_SCOPE, at the timers file's temporary name it held exit(). At the claim's name it did
// not block (opened for reading and writing) but was used as the claim, silently.
class PlantedFifo : public Planted, public ::testing::WithParamInterface<const char*> {};

std::string fifo_case_name(const ::testing::TestParamInfo<const char*>& info) {
    const char* const names[] = {"AtTheTraceName", "AtTheTimersTemporaryName", "AtTheTraceTemporaryName",
                                 "AtTheClaimName"};
    return names[info.index];
}

TEST_P(PlantedFifo, NeitherBlocksNorIsWrittenAndIsReportedOnce) {
    const VictimRun r = run_victim([&](pid_t pid) { return plant_fifo(with_pid(GetParam(), pid)); });
    const std::string name = with_pid(GetParam(), r.pid);
    ASSERT_TRUE(r.planted);
    ASSERT_TRUE(r.finished) << "hung on the FIFO at " << GetParam();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(shared_ + "/" + name))) << "left as it is";
    EXPECT_EQ(lines_naming(r.err, "'" + shared_ + "/" + name + "'"), 1) << r.err;
    EXPECT_EQ(lines_naming(r.err, "ringprof"), 1) << r.err;
    expect_other_outputs(name);
}

INSTANTIATE_TEST_SUITE_P(OutputNames, PlantedFifo,
                         ::testing::Values("victim_trace.json.gz", "victim_timers.json.%p.tmp",
                                           "victim_trace.json.gz.%p.tmp", ".victim.ringprof_claim"),
                         fifo_case_name);

}  // namespace
}  // namespace ringprof::testing
