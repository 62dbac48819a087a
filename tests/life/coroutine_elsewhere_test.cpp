// A C++20 coroutine opens a PROF_SCOPE on one thread, waits, and is resumed on another, where
// the scope ends. Before, the scope stayed open on the opener, each next one nested below it, and
// 200,000 of them crashed the drainer. Now each is closed where it opened, at its end, and the
// opener's own scopes stay at its root. Built as C++20 where the compiler has <coroutine>
// (tests/CMakeLists.txt); elsewhere the test skips.
#include <gtest/gtest.h>

#if __cplusplus >= 202002L && __has_include(<coroutine>)
#include <condition_variable>
#include <coroutine>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "bounded_process.hpp"
#include "ringprof/ringprof.hpp"
#include "ringprof/timers_json.hpp"
#include "temp_dir.hpp"

namespace ringprof::testing {
namespace {

using namespace std::chrono_literals;

// A worker that resumes the coroutines handed to it, and frees each once it has finished.
class Resumer {
public:
    void push(std::coroutine_handle<> h) {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < kMaxQueued; });  // bounds the frames alive
        queue_.push_back(h);
        ready_.notify_one();
    }
    void serve() {
        for (;;) {
            std::coroutine_handle<> h;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [&] { return !queue_.empty() || done_; });
                if (queue_.empty()) return;
                h = queue_.front();
                queue_.pop_front();
                room_.notify_one();
            }
            h.resume();  // the coroutine's scope ends here, on this thread
            if (h.done()) h.destroy();
        }
    }
    void stop() {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
        ready_.notify_all();
    }

private:
    static constexpr std::size_t kMaxQueued = 1000;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::condition_variable room_;
    std::deque<std::coroutine_handle<>> queue_;
    bool done_ = false;
};

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

std::size_t deepest_level(const TimerNode& root) {
    std::size_t deepest = 0;
    std::vector<std::pair<const TimerNode*, std::size_t>> todo{{&root, 0}};
    while (!todo.empty()) {
        const auto [node, depth] = todo.back();
        todo.pop_back();
        deepest = std::max(deepest, depth);
        for (const TimerNode& c : node->children) todo.emplace_back(&c, depth + 1);
    }
    return deepest;
}

TEST(CoroutineElsewhere, ScopesOfCoroutinesResumedOnAnotherThreadCloseWhereTheyOpened) {
    TempDir dir;
    const std::string err = dir.str() + "/stderr.txt";
    const long requests = scaled(200000);
    const Outcome o = run_bounded(
        [&] {
            set_env("RINGPROF_OUTPUT_DIR", dir.str());
            set_env("RINGPROF_RUN_ID", "coroutines");
            set_env("RINGPROF_BACKENDS", "timers,stats,trace");
            Resumer resumer;
            std::thread worker([&] { resumer.serve(); });
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
    EXPECT_EQ(deepest_level(tree.root), 1u);
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
