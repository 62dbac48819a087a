// fork() is safe for both sides: neither process writes into the other's files, and both
// sides' files are whole, however the child ends (exit, _exit, exec, recording, outliving the
// parent).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "sanitizer_build.hpp"
#include "gzip_text.hpp"
#include "temp_dir.hpp"

// Forked children start threads of their own; ThreadSanitizer allows that when asked to.
extern "C" __attribute__((used)) const char* __tsan_default_options() { return "die_after_fork=0"; }

namespace ringprof::testing {
namespace {

namespace fs = std::filesystem;

enum class ChildEnd { Exit, UnderscoreExit, Exec, RecordsAndExits, OutlivesParent };

void record(const char* which, long n) {
    for (long i = 0; i < n; ++i) {
        if (which[0] == 'b') {
            PROF_SCOPE("before_fork");
        } else if (which[0] == 'a') {
            PROF_SCOPE("after_fork");
        } else {
            PROF_SCOPE("in_child");
        }
    }
}

// The measured failure: a single-threaded parent records 30,000 scopes, sleeps 300 ms, forks,
// records 1,000 more and returns from main.
int parent_that_forks(const std::string& dir, ChildEnd end) {
    set_env("RINGPROF_OUTPUT_DIR", dir);
    set_env("RINGPROF_RUN_ID", "parent");
    record("b", scaled(30000));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int parent_alive[2];
    if (::pipe(parent_alive) != 0) return 10;
    const pid_t child = ::fork();
    if (child < 0) return 11;
    if (child == 0) {
        ::close(parent_alive[1]);
        switch (end) {
            case ChildEnd::Exit:
                std::exit(0);
            case ChildEnd::UnderscoreExit:
                ::_exit(0);
            case ChildEnd::Exec:
                ::execl("/bin/true", "true", static_cast<char*>(nullptr));
                ::_exit(12);
            case ChildEnd::RecordsAndExits:
                record("c", 2000);
                std::exit(0);
            case ChildEnd::OutlivesParent: {
                char c;
                while (::read(parent_alive[0], &c, 1) != 0) {
                }  // end of file: the parent is gone
                record("c", 2000);
                std::exit(0);
            }
        }
    }
    ::close(parent_alive[0]);
    record("a", 1000);
    if (end != ChildEnd::OutlivesParent) {
        int status = 0;
        ::waitpid(child, &status, 0);
    }
    return 0;  // the write end of the pipe closes as this process exits
}

bool whole_json(const std::string& text) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    return parser.parse(text).get(doc) == simdjson::SUCCESS;
}

void expect_whole_outputs(const std::string& dir, const std::string& run_id, const char* scope, long count) {
    SCOPED_TRACE(run_id);
    const TimerTree tree = load_timers_json(dir + "/" + run_id + "_timers.json");
    const TimerNode* node = tree.root.find(scope);
    ASSERT_NE(node, nullptr) << scope;
    EXPECT_EQ(node->count, static_cast<std::uint64_t>(count)) << scope;
    const Inflated trace = inflate_gzip(read_text(dir + "/" + run_id + "_trace.json.gz"));
    EXPECT_TRUE(trace.whole()) << "trace.json.gz is cut short, fails its CRC or has bytes after its end";
    EXPECT_TRUE(whole_json(trace.text)) << "trace is not whole JSON";
    EXPECT_TRUE(whole_json(read_text(dir + "/" + run_id + "_stats.json")));
}

using ringprof::testing::kThreadSanitizer;

void check_fork(ChildEnd end, bool child_records) {
    if (kThreadSanitizer && child_records) {
        // Its runtime stops a child that starts threads after a multi-threaded fork ("dup
        // thread with used id"); the normal and AddressSanitizer builds run this case.
        GTEST_SKIP() << "ThreadSanitizer cannot follow threads started in a forked child";
    }
    TempDir dir;
    const Outcome o = run_bounded([&] { return parent_that_forks(dir.str(), end); });
    ASSERT_TRUE(o.finished) << "the parent or the child hung";
    ASSERT_EQ(o.exit_code, 0);
    expect_whole_outputs(dir.str(), "parent", "before_fork", scaled(30000));
    const TimerTree parent = load_timers_json(dir.str() + "/parent_timers.json");
    ASSERT_NE(parent.root.find("after_fork"), nullptr);
    EXPECT_EQ(parent.root.find("after_fork")->count, 1000u) << "the parent keeps recording after fork";
    EXPECT_EQ(parent.root.find("in_child"), nullptr) << "the child's scopes stay out of the parent's files";

    std::vector<std::string> child_runs;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        const std::string name = e.path().filename().string();
        EXPECT_EQ(name.find(".tmp"), std::string::npos) << "left behind: " << name;
        const std::string suffix = "_timers.json";
        if (name.rfind("parent_", 0) == 0 && name != "parent" + suffix &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            child_runs.push_back(name.substr(0, name.size() - suffix.size()));
        }
    }
    if (child_records) {
        ASSERT_EQ(child_runs.size(), 1u) << "the child writes files of its own, named <run_id>_<child pid>";
        expect_whole_outputs(dir.str(), child_runs[0], "in_child", 2000);
        const TimerTree child = load_timers_json(dir.str() + "/" + child_runs[0] + "_timers.json");
        EXPECT_EQ(child.root.find("before_fork"), nullptr) << "the child gets none of the parent's data";
    } else {
        EXPECT_TRUE(child_runs.empty()) << "a child that records nothing writes nothing";
    }
    int pevents = 0;
    const fs::path framework = dir.path() / "framework";
    for (const auto& e : fs::recursive_directory_iterator(framework)) {
        if (!e.is_regular_file()) continue;
        EXPECT_EQ(e.path().extension(), ".json") << "left open: " << e.path();
        EXPECT_TRUE(whole_json(read_text(e.path()))) << e.path() << " is not whole JSON";
        ++pevents;
    }
    EXPECT_GE(pevents, child_records ? 2 : 1);
}

TEST(Fork, ChildThatCallsExitLeavesTheParentsFilesWhole) { check_fork(ChildEnd::Exit, false); }
TEST(Fork, ChildThatCallsUnderscoreExitLeavesTheParentsFilesWhole) { check_fork(ChildEnd::UnderscoreExit, false); }
TEST(Fork, ChildThatExecsLeavesTheParentsFilesWhole) { check_fork(ChildEnd::Exec, false); }
TEST(Fork, ChildThatRecordsWritesWholeFilesOfItsOwn) { check_fork(ChildEnd::RecordsAndExits, true); }
TEST(Fork, ChildThatOutlivesItsParentWritesWholeFilesOfItsOwn) { check_fork(ChildEnd::OutlivesParent, true); }

}  // namespace
}  // namespace ringprof::testing
