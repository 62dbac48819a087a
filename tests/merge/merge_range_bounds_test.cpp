// `--start/--end` at their bounds, exactly as docs/merge.md states them: in time, events that
// overlap [A, B] (both ends inclusive); in steps, from the start of step A to just before the
// start of step B (B's start exclusive). An event touching each bound, and one a microsecond
// beyond it, through the library and through `ringprof merge`.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;
using ringprof::MergeUnit;

namespace {

// Ten 100 µs steps, [100s, 100s + 90], and probes around µs 300 and 499 (relative to kBase),
// named by where they sit.
struct Probe {
    const char* name;
    std::int64_t ts, dur;
};
constexpr Probe kProbes[] = {
    {"ends_one_before_300", 289, 10},  // [289, 299]
    {"ends_at_300", 290, 10},          // [290, 300]
    {"starts_at_499", 499, 0},         // [499, 499]
    {"starts_at_500", 500, 0},         // [500, 500]
};

void one_host(const fs::path& root) {
    std::vector<PhaseEvent> ev;
    for (int s = 0; s < 10; ++s) {
        ev.push_back({"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", s * 100, 90,
                      "{\"step_num\": \"" + std::to_string(s) + "\"}"});
    }
    for (const Probe& p : kProbes) ev.push_back({"probe", p.name, p.ts, p.dur, ""});
    write_file(pevents_file(root, kBase + 1000, "100-host0", "pythontimeline.json"), smdebug_timeline(kBase, ev));
}

std::set<std::string> probes_kept(const std::string& output) {
    std::set<std::string> kept;
    for (const auto& e : only_x(read_output(output)))
        if (e.name.rfind("ends_", 0) == 0 || e.name.rfind("starts_", 0) == 0) kept.insert(e.name);
    return kept;
}

struct RangeCase {
    const char* what;
    MergeUnit unit;
    std::int64_t start, end;  // as given to the merge: µs since the epoch, or step numbers
    std::set<std::string> kept;
};

std::vector<RangeCase> range_cases() {
    return {
        // Time: [A, B] with both ends inclusive.
        {"time from 300 to 499", MergeUnit::time, kBase + 300, kBase + 499, {"ends_at_300", "starts_at_499"}},
        {"time from 301 to 498", MergeUnit::time, kBase + 301, kBase + 498, {}},
        {"time from 299 to 500",
         MergeUnit::time,
         kBase + 299,
         kBase + 500,
         {"ends_one_before_300", "ends_at_300", "starts_at_499", "starts_at_500"}},
        {"time from 300 to 300", MergeUnit::time, kBase + 300, kBase + 300, {"ends_at_300"}},
        // Steps 3 to 5: from step 3's start (µs 300, inclusive) to just before step 5's (µs 500).
        {"steps 3 to 5", MergeUnit::step, 3, 5, {"ends_at_300", "starts_at_499"}},
        {"steps 3 to 6", MergeUnit::step, 3, 6, {"ends_at_300", "starts_at_499", "starts_at_500"}},
    };
}

TEST(MergeRangeBounds, TimeRangesIncludeBothEndsAndStepRangesExcludeTheEndStepsStart) {
    TempDir dir;
    one_host(dir.path());
    for (const RangeCase& c : range_cases()) {
        SCOPED_TRACE(c.what);
        const auto r = MergedTimeline(dir.path().string()).merge_timeline(c.start, c.end, c.unit);
        EXPECT_EQ(probes_kept(r.output_path), c.kept);
        std::remove(r.output_path.c_str());
    }
    const auto steps = MergedTimeline(dir.path().string()).merge_timeline(3, 5, MergeUnit::step);
    EXPECT_EQ(steps.start_us, kBase + 300);
    EXPECT_EQ(steps.end_us, kBase + 499);
}

#ifdef RINGPROF_TOOL
TEST(MergeRangeBounds, TheCommandKeepsTheSameEventsAsTheLibraryAtEachBound) {
    TempDir dir;
    one_host(dir.path());
    for (const RangeCase& c : range_cases()) {
        SCOPED_TRACE(c.what);
        const fs::path out = dir.path() / "out";
        fs::remove_all(out);
        const std::string cmd = std::string(RINGPROF_TOOL) + " merge '" + dir.path().string() + "' --start " +
                                std::to_string(c.start) + " --end " + std::to_string(c.end) + " --unit " +
                                (c.unit == MergeUnit::step ? "step" : "time") + " -o '" + out.string() +
                                "' 2>/dev/null";
        FILE* p = popen(cmd.c_str(), "r");
        ASSERT_NE(p, nullptr);
        std::string path;
        char buf[512];
        while (std::fgets(buf, sizeof buf, p) != nullptr) path += buf;
        ASSERT_EQ(pclose(p), 0) << cmd;
        while (!path.empty() && path.back() == '\n') path.pop_back();
        EXPECT_EQ(probes_kept(path), c.kept);
    }
}
#endif

}  // namespace
