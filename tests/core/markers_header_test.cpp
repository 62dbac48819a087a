// <ringprof/markers.hpp> alone is enough to mark code: the functions of markers_only.cpp, which
// includes nothing else (and checks at compile time that no feature header came with it), record
// scopes, gauges and steps like any other.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "markers_only.hpp"
#include "ringprof/ringprof.hpp"
#include "temp_dir.hpp"
#include "timers_only_config.hpp"

namespace ringprof {
namespace {

class StepSpans : public Backend {
public:
    const char* name() const override { return "step_spans"; }
    bool wants_spans() const override { return true; }
    void on_spans(const SpanBatch& batch) override {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const Span& s : batch.spans) {
            const int mode = step_mode_of(s.site);
            if (mode >= 0) steps_.push_back({mode, s.step});
        }
    }
    std::vector<std::pair<int, std::int64_t>> steps() {
        std::lock_guard<std::mutex> lock(mutex_);
        return steps_;
    }

private:
    std::mutex mutex_;
    std::vector<std::pair<int, std::int64_t>> steps_;
};

TEST(MarkersHeader, MarkersFromAFileIncludingOnlyMarkersHppRecordScopesGaugesAndSteps) {
    testing::TempDir dir;
    Config c = ringprof::testing::timers_only(dir, "markers");
    Session session(c);
    auto steps = std::make_unique<StepSpans>();
    StepSpans* seen = steps.get();
    session.add_backend(std::move(steps));

    for (int i = 0; i < 3; ++i) markers_only::marked_step(i, 0.5 * i);
    markers_only::marked_eval_step(7);
    session.flush();
    const Snapshot s = session.snapshot();

    const TimerNode* step_fn = s.tree.root.find("marked_step");
    ASSERT_NE(step_fn, nullptr) << "PROF_FUNCTION";
    EXPECT_EQ(step_fn->count, 3u);
    const TimerNode* inner = step_fn->find("inner");
    ASSERT_NE(inner, nullptr) << "PROF_SCOPE nested under PROF_FUNCTION";
    EXPECT_EQ(inner->count, 3u);
    const TimerNode* evaluate = s.tree.root.find("evaluate");
    ASSERT_NE(evaluate, nullptr);
    EXPECT_EQ(evaluate->count, 1u);

    ASSERT_EQ(s.tree.gauges.size(), 1u) << "PROF_GAUGE";
    EXPECT_EQ(s.tree.gauges[0].first, "loss");
    EXPECT_EQ(s.tree.gauges[0].second.count, 3u);
    EXPECT_DOUBLE_EQ(s.tree.gauges[0].second.max, 1.0);

    const std::vector<std::pair<int, std::int64_t>> expected = {{static_cast<int>(StepMode::Train), 0},
                                                                {static_cast<int>(StepMode::Train), 1},
                                                                {static_cast<int>(StepMode::Train), 2},
                                                                {static_cast<int>(StepMode::Eval), 7}};
    EXPECT_EQ(seen->steps(), expected) << "PROF_STEP and PROF_STEP_MODE";
}

}  // namespace
}  // namespace ringprof
