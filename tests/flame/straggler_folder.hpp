// A job of three nodes (two processes on host algo-1, one on algo-2) in smdebug's layout, six
// steps, where the test knows each node's time in every step and so which node holds each step
// back: for the steps view, in the page data and in the browser. Written with the step tests'
// own fixture writer.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "../steps/steps_fixtures.hpp"

namespace flame_test {

struct StragglerJob {
    // As merge names the nodes ("<pid>-algo-N" files become "algo-N-<pid>"), sorted.
    std::vector<std::string> nodes{"algo-1-11", "algo-1-12", "algo-2-21"};
    // us[node][step]: each node's step event lasts this long; every step starts at once on all.
    // Steps 0, 2 and 5 take as long everywhere (no straggler); 1 and 3 wait for algo-2-21, 4 for
    // algo-1-12; step 3 is far longer than the others (an outlier).
    std::vector<std::vector<long long>> us{
        {1000, 1000, 1000, 1000, 1000, 1000},
        {1000, 1100, 1000, 1050, 1400, 1000},
        {1000, 1600, 1000, 5000, 1000, 1000},
    };
    std::vector<int> straggler{-1, 2, -1, 2, 1, -1};  // index into nodes, -1: none
    std::size_t steps() const { return us.front().size(); }
    static long long step_start(std::size_t step) { return 100 + static_cast<long long>(step) * 10000; }
};

// Writes the job under `root`; with `with_steps` false the same events carry no step at all (no
// step_num and no Step:ModeKeys events): a job without steps.
inline void write_straggler_job(const std::filesystem::path& root, const StragglerJob& job, bool with_steps = true) {
    constexpr long long kBase = 1594662605000000;
    const char* files[] = {"11-algo-1", "12-algo-1", "21-algo-2"};
    for (std::size_t n = 0; n < job.nodes.size(); ++n) {
        std::vector<steps_test::Ev> events;
        for (std::size_t s = 0; s < job.steps(); ++s) {
            const long long start = StragglerJob::step_start(s), dur = job.us[n][s];
            if (with_steps)
                events.push_back(
                    {"Step:ModeKeys.TRAIN", 1, start, dur, "{\"step_num\": \"" + std::to_string(s) + "\"}"});
            else
                events.push_back({"train_batch", 1, start, dur, ""});
            events.push_back({"forward", 2, start + 10, dur / 2, ""});  // no step_num: inside its step
        }
        steps_test::write_timeline(root, files[n], kBase + 70000, "pythontimeline.json", kBase,
                                   {{1, "Step:ModeKeys.TRAIN"}, {2, "Forward"}}, events);
    }
}

}  // namespace flame_test
