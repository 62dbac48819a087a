// Thread names in the timelines tell threads apart: what the program set (set_thread_name, or
// pthread_setname_np), else "main" for the main thread and "thread <tid>" for the others,
// never the process's name that unnamed Linux threads inherit.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <functional>

#include <map>
#include <set>
#include <string>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

// Runs `body` in a forked child (a fresh process: its main thread has no name from earlier
// tests) and fails if the child fails or has not finished within the deadline.
void run_in_child(const std::function<void()>& body) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        body();
        std::fflush(nullptr);
        ::_exit(::testing::Test::HasFailure() ? 1 : 0);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            FAIL() << "the child did not finish within 60 s";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child's checks failed (see above)";
}

std::int64_t os_tid() { return static_cast<std::int64_t>(::syscall(SYS_gettid)); }

// tid -> name from the trace's thread_name events.
std::map<std::int64_t, std::string> trace_thread_names(const std::filesystem::path& file) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(gunzip(read_text(file)));
    std::map<std::int64_t, std::string> names;
    for (const Ev& e : events_of(doc["traceEvents"].get_array())) {
        if (e.ph == "M" && e.name == "thread_name") names[e.tid] = e.arg_name;
    }
    return names;
}

void unnamed_threads_are_told_apart(const TempDir& dir) {
    std::int64_t unnamed_a = 0, unnamed_b = 0, by_os = 0, by_api = 0;
    {
        Session session(timeline_config(dir.str(), {"trace", "pythontimeline"}));
        { PROF_SCOPE("on_main"); }
        std::thread a([&] {
            unnamed_a = os_tid();
            PROF_SCOPE("work");
        });
        std::thread b([&] {
            unnamed_b = os_tid();
            PROF_SCOPE("work");
        });
        std::thread c([&] {
            by_os = os_tid();
            pthread_setname_np(pthread_self(), "os-named");
            PROF_SCOPE("work");
        });
        std::thread d([&] {
            by_api = os_tid();
            pthread_setname_np(pthread_self(), "os-ignored");
            set_thread_name("api-named");
            PROF_SCOPE("work");
        });
        a.join();
        b.join();
        c.join();
        d.join();
    }
    const auto names = trace_thread_names(dir.path() / "t_trace.json.gz");
    ASSERT_EQ(names.count(static_cast<std::int64_t>(::getpid())), 1u);
    EXPECT_EQ(names.at(::getpid()), "main");
    EXPECT_EQ(names.at(unnamed_a), "thread " + std::to_string(unnamed_a));
    EXPECT_EQ(names.at(unnamed_b), "thread " + std::to_string(unnamed_b));
    EXPECT_EQ(names.at(by_os), "os-named");
    EXPECT_EQ(names.at(by_api), "api-named");
    std::set<std::string> distinct;
    for (const auto& [tid, name] : names) distinct.insert(name);
    EXPECT_EQ(distinct.size(), names.size()) << "two threads share a name";

    // The pythontimeline declares the same names.
    std::map<std::int64_t, std::string> py;
    simdjson::dom::parser parser;
    for (const auto& file : pevents_files(dir.path())) {
        simdjson::dom::element doc = parser.load(file.string());
        for (const Ev& e : events_of(doc.get_array())) {
            if (e.ph == "M" && e.name == "thread_name") py[e.tid] = e.arg_name;
        }
    }
    for (const auto& [tid, name] : names) {
        if (py.count(tid) != 0) {
            EXPECT_EQ(py.at(tid), name) << tid;
        }
    }
    EXPECT_EQ(py.at(unnamed_a), "thread " + std::to_string(unnamed_a));
}

TEST(ThreadNames, UnnamedThreadsAreToldApartAndSetNamesAreKept) {
    TempDir dir;
    run_in_child([&] { unnamed_threads_are_told_apart(dir); });
}

void set_thread_name_on_main_replaces_main(const TempDir& dir) {
    const std::int64_t main_tid = ::getpid();
    {
        Session session(timeline_config(dir.str(), {"trace"}));
        set_thread_name("learner");
        PROF_SCOPE("step");
    }
    const auto names = trace_thread_names(dir.path() / "t_trace.json.gz");
    ASSERT_EQ(names.count(main_tid), 1u);
    EXPECT_EQ(names.at(main_tid), "learner");
}

TEST(ThreadNames, SetThreadNameOnMainReplacesMain) {
    TempDir dir;
    run_in_child([&] { set_thread_name_on_main_replaces_main(dir); });
}

}  // namespace
}  // namespace ringprof
