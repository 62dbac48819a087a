// Steps label spans of every thread by time; the timeline filters leave the aggregates whole;
// the environment reaches the timeline settings.
#include <gtest/gtest.h>

#include <optional>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <vector>
#include <thread>

#include "ringprof/ringprof.hpp"
#include "timeline/step_intervals.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

TEST(StepIntervals, FindsTheStepRunningAtATime) {
    detail::StepIntervals steps;
    EXPECT_EQ(steps.step_at(5), std::nullopt);
    steps.open(100, 0, 1, 0);
    EXPECT_EQ(steps.step_at(150), 0) << "an open step covers everything after its begin";
    steps.close(100, 200, 1, 0);
    steps.open(300, 1, 1, 0);
    steps.close(300, 400, 1, 0);
    EXPECT_EQ(steps.step_at(99), std::nullopt);
    EXPECT_EQ(steps.step_at(100), 0);
    EXPECT_EQ(steps.step_at(199), 0);
    EXPECT_EQ(steps.step_at(250), std::nullopt) << "between steps";
    EXPECT_EQ(steps.step_at(350), 1);
    // Decoded late (another ring read first): still found by time.
    steps.open(220, 7, 2, 1);
    steps.close(220, 280, 2, 1);
    EXPECT_EQ(steps.step_at(250), 7);
    // Overlapping: the step that began last wins.
    steps.open(500, 10, 1, 3);
    steps.open(510, 11, 1, 0);
    EXPECT_EQ(steps.step_at(520), 11);
    steps.close(510, 530, 1, 0);
    EXPECT_EQ(steps.step_at(540), 10);
}

// The lookup starts where the last one ended: whatever the order of lookups and of the steps'
// arrival (some inserted late, before later ones), it answers as a search of every step
// would: the step that began last among those running at the time, or -1.
TEST(StepIntervals, LookupsInAnyOrderAnswerAsAFullSearchWould) {
    struct Step {
        std::uint64_t begin, end;
        std::int64_t number;
    };
    std::uint64_t state = 12345;
    auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    detail::StepIntervals steps;
    std::vector<Step> all;
    auto reference = [&](std::uint64_t t) {
        // From the step that began last at or before t backwards (16 at most, equal begins in
        // the order they came), the first still running.
        std::vector<const Step*> by_begin;
        for (const Step& s : all)
            if (s.begin <= t) by_begin.push_back(&s);
        std::stable_sort(by_begin.begin(), by_begin.end(),
                         [](const Step* a, const Step* b) { return a->begin < b->begin; });
        for (auto it = by_begin.rbegin(); it != by_begin.rend() && it - by_begin.rbegin() < 16; ++it) {
            if (t < (*it)->end) return std::optional<std::int64_t>((*it)->number);
        }
        return std::optional<std::int64_t>();
    };
    std::uint64_t t = 1000;
    for (int k = 0; k < 300; ++k) {
        // Mostly in order, sometimes late (a ring read after another), with gaps between steps.
        const bool late = k > 10 && next() % 5 == 0;
        const std::uint64_t begin = late ? t - 1 - next() % 900 : t;
        const std::uint64_t end = begin + 1 + next() % 400;
        if (!late) t += 100 + next() % 300;
        steps.open(begin, k, 1, 0);
        steps.close(begin, end, 1, 0);
        all.push_back(Step{begin, end, k});
        // Lookups in time order, then backwards, then at random, at and around the step edges.
        for (int q = 0; q < 20; ++q) {
            const std::uint64_t at =
                q < 10 ? begin - 50 + 20 * static_cast<std::uint64_t>(q) : 900 + next() % (t - 800);
            ASSERT_EQ(steps.step_at(at), reference(at)) << "step " << k << ", lookup at " << at;
        }
        for (const std::uint64_t edge : {begin - 1, begin, end - 1, end}) {
            ASSERT_EQ(steps.step_at(edge), reference(edge)) << "step " << k << ", edge " << edge;
        }
    }
}

void unit_of_work() {
    PROF_SCOPE("work");
    for (volatile int i = 0; i < 200; i = i + 1) {
    }
}

TEST(Steps, WorkerSpansCarryTheStepRunningWhenTheyBegan) {
    Collected c;
    auto collect = std::make_unique<CollectingBackend>(c);
    constexpr int kSteps = 20;
    {
        TempDir dir;
        Session session(timeline_config(dir.str(), {"timers"}));
        session.add_backend(std::move(collect));
        std::atomic<bool> stop{false};
        std::vector<std::thread> workers;
        for (int w = 0; w < 2; ++w) {
            workers.emplace_back([&] {
                while (!stop.load()) unit_of_work();
            });
        }
        for (int s = 0; s < kSteps; ++s) {
            PROF_STEP(s);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        stop.store(true);
        for (auto& t : workers) t.join();
    }
    std::vector<const Span*> steps;
    for (const Span& s : c.spans) {
        if (step_mode_of(s.site) >= 0) steps.push_back(&s);
    }
    ASSERT_EQ(steps.size(), static_cast<std::size_t>(kSteps));
    long checked = 0, wrong = 0, labeled = 0;
    for (const Span& s : c.spans) {
        if (step_mode_of(s.site) >= 0) continue;
        std::optional<std::int64_t> expected;
        for (const Span* st : steps) {
            if (s.begin_ns >= st->begin_ns && s.begin_ns < st->end_ns) expected = st->step;
        }
        ++checked;
        labeled += s.has_step;
        wrong += (s.has_step ? std::optional<std::int64_t>(s.step) : std::nullopt) != expected;
    }
    ASSERT_GT(checked, 100);
    EXPECT_GT(labeled, 0) << "worker spans run inside steps";
    // Exact by construction; a producer preempted between reading the clock and publishing its
    // step for longer than a drainer pass could mislabel a few (documented), so allow 1%.
    EXPECT_LE(wrong, checked / 100) << wrong << " of " << checked << " worker spans carry the wrong step";
}

void nest(int depth) {
    PROF_SCOPE("level");
    if (depth > 1) nest(depth - 1);
}

TEST(TimelineFilters, DepthAndDurationLimitOnlyTheTimeline) {
    Collected c;
    auto collect = std::make_unique<CollectingBackend>(c);
    TempDir dir;
    Config config = timeline_config(dir.str(), {"timers"});
    config.timeline_max_depth = 2;
    std::uint64_t level_count = 0;
    {
        Session session(config);
        session.add_backend(std::move(collect));
        for (int i = 0; i < 10; ++i) nest(5);
        {
            PROF_SCOPE("slow");
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
        const Snapshot s = session.snapshot();
        for (const TimerNode* n = s.tree.root.find("level"); n != nullptr; n = n->find("level"))
            level_count += n->count;
    }
    EXPECT_EQ(level_count, 50u) << "the aggregates see every level";
    long levels = 0;
    for (const Span& s : c.spans) {
        EXPECT_LT(s.depth, 2u);
        levels += std::string(s.name) == "level";
    }
    EXPECT_EQ(levels, 20);
    EXPECT_EQ(c.status.filtered_spans, 30u);

    Collected c2;
    auto collect2 = std::make_unique<CollectingBackend>(c2);
    config.timeline_max_depth = 0;
    config.timeline_min_ns = 1'000'000;  // 1 ms
    {
        Session session(config);
        session.add_backend(std::move(collect2));
        for (int i = 0; i < 10; ++i) nest(3);
        PROF_SCOPE("slow");
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
    ASSERT_EQ(c2.spans.size(), 1u);
    EXPECT_STREQ(c2.spans[0].name, "slow");
}

TEST(TimelineFilters, SettingsComeFromTheEnvironment) {
    ::setenv("RINGPROF_TIMELINE_MIN_NS", "2500", 1);
    ::setenv("RINGPROF_TIMELINE_MAX_DEPTH", "3", 1);
    ::setenv("RINGPROF_TIMELINE_QUEUE_SPANS", "1000", 1);
    ::setenv("RINGPROF_PYTHONTIMELINE_MAX_BYTES", "123456", 1);
    ::setenv("RINGPROF_PYTHONTIMELINE_MAX_SECONDS", "7", 1);
    ::setenv("RINGPROF_BACKENDS", "timers, trace,pythontimeline", 1);
    const Config c = Config::from_environment();
    for (const char* v :
         {"RINGPROF_TIMELINE_MIN_NS", "RINGPROF_TIMELINE_MAX_DEPTH", "RINGPROF_TIMELINE_QUEUE_SPANS",
          "RINGPROF_PYTHONTIMELINE_MAX_BYTES", "RINGPROF_PYTHONTIMELINE_MAX_SECONDS", "RINGPROF_BACKENDS"}) {
        ::unsetenv(v);
    }
    EXPECT_EQ(c.timeline_min_ns, 2500u);
    EXPECT_EQ(c.timeline_max_depth, 3u);
    EXPECT_EQ(c.timeline_queue_spans, 1000u);
    EXPECT_EQ(c.pythontimeline_max_bytes, 123456u);
    EXPECT_EQ(c.pythontimeline_max_seconds, 7u);
    EXPECT_EQ(c.backends, (std::vector<std::string>{"timers", "trace", "pythontimeline"}));
}

TEST(Backends, EveryBuiltInIsWrittenWhenNoneAreNamed) {
    TempDir dir;
    {
        Config c = timeline_config(dir.str(), {});
        Session session(c);
        PROF_STEP(0);
        unit_of_work();
    }
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "t_timers.json"));
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "t_trace.json.gz"));
    EXPECT_EQ(pevents_files(dir.path()).size(), 1u);
}

}  // namespace
}  // namespace ringprof
