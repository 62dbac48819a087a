// A C++20 coroutine opens a PROF_SCOPE on one thread, waits, and is resumed on another, where
// the scope ends. Each is closed where it opened, at its end, and the opener's own scopes stay at
// its root: a scope left open on the opener would hold each next one below it, a level per
// request, and 200,000 of them would overflow the drainer. Built as C++20 where the compiler has
// <coroutine> (tests/CMakeLists.txt); elsewhere the test skips.
#include <gtest/gtest.h>

#if __cplusplus >= 202002L && __has_include(<coroutine>)
#include <coroutine>
#include <exception>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "env_session.hpp"
#include "handoff_queue.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"
#include "timer_tree_reading.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

// A worker that resumes the coroutines handed to it (at most 1,000 waiting: that bounds the
// frames alive), and frees each once it has finished.
using Resumer = HandoffQueue<std::coroutine_handle<>>;
constexpr std::size_t kMaxWaiting = 1000;

void resume_and_free(std::coroutine_handle<> h) {
    h.resume();  // the coroutine's scope ends here, on this thread
    if (h.done()) h.destroy();
}

// Fire and forget: runs until its first suspension on the caller; the resumer frees it.
struct Detached {
    struct promise_type {
        Detached get_return_object() noexcept { return {}; }
        std::suspend_never initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { std::terminate(); }
    };
};

struct ResumeOn {
    Resumer& resumer;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { resumer.push(h); }
    void await_resume() const noexcept {}
};

Detached handle_request(Resumer& resumer) {
    PROF_SCOPE("request");
    co_await ResumeOn{resumer};
    PROF_SCOPE("reply");  // on the resumer: its own root
}

TEST(CoroutineElsewhere, ScopesOfCoroutinesResumedOnAnotherThreadCloseWhereTheyOpened) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const long requests = scaled(200000);
    const Outcome o = run_bounded(
        [&] {
            record_to(dir, "coroutines", "timers,stats,trace");
            Resumer resumer(kMaxWaiting);
            std::thread worker([&] { resumer.serve(resume_and_free); });
            for (long i = 0; i < requests; ++i) {
                handle_request(resumer);
                PROF_SCOPE("accept");
            }
            resumer.stop();
            worker.join();
            { PROF_SCOPE("after"); }
            return 0;
        },
        stderr_to(err, 240s));
    ASSERT_TRUE(o.finished) << "hung";
    ASSERT_EQ(o.exit_code, 0) << "signal " << o.signal << "\n" << read_text(err);
    const TimerTree tree = load_timers_json(dir.str() + "/coroutines_timers.json");
    EXPECT_EQ(metadata_value(tree, "dropped_scopes"), "0") << read_text(err);
    const TimerNode* request = tree.root.find("request");
    ASSERT_NE(request, nullptr);
    EXPECT_EQ(request->count, static_cast<std::uint64_t>(requests));
    EXPECT_TRUE(request->children.empty()) << "the opener's own scopes ran beside the waiting coroutine";
    const TimerNode* accept = tree.root.find("accept");
    ASSERT_NE(accept, nullptr);
    EXPECT_EQ(accept->count, static_cast<std::uint64_t>(requests));
    const TimerNode* reply = tree.root.find("reply");
    ASSERT_NE(reply, nullptr);
    EXPECT_EQ(reply->count, static_cast<std::uint64_t>(requests));
    ASSERT_NE(tree.root.find("after"), nullptr);
    EXPECT_EQ(tree_depth(tree.root), 1u);
    const std::string* misnested = tree.find_metadata("misnested_scopes");
    ASSERT_NE(misnested, nullptr);
    EXPECT_EQ(*misnested, std::to_string(requests));
}

}  // namespace
}  // namespace ringprof::testing

#else
TEST(CoroutineElsewhere, ScopesOfCoroutinesResumedOnAnotherThreadCloseWhereTheyOpened) {
    GTEST_SKIP() << "built without C++20 coroutines";
}
#endif
