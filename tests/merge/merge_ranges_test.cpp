// Time and step ranges, multi-host input, empty results and the spill path.
#include <gtest/gtest.h>

#include "merge_fixtures.hpp"
#include "ringprof/merged_timeline.hpp"

using namespace merge_test;
using ringprof::MergedTimeline;
using ringprof::MergeUnit;

namespace {

// Ten 100 µs steps on each of two hosts; host B's clock base is 30 µs later.
void two_hosts(const fs::path& root) {
    for (int host = 0; host < 2; ++host) {
        std::vector<PhaseEvent> ev;
        for (int s = 0; s < 10; ++s) {
            const std::string step = "{\"step_num\": \"" + std::to_string(s) + "\"}";
            ev.push_back({"Step:ModeKeys.TRAIN", "Step:ModeKeys.TRAIN", s * 100, 90, step});
            ev.push_back({"Forward-pass", "fwd", s * 100 + 10, 40, step});
        }
        const std::string node = std::to_string(100 + host) + "-host" + std::to_string(host);
        write_file(pevents_file(root, kBase + 1000 + host, node, "pythontimeline.json"),
                   smdebug_timeline(kBase + host * 30, ev));
    }
}

TEST(MergeRanges, TimeRangeKeepsOverlappingEvents) {
    TempDir dir;
    two_hosts(dir.path());
    // Steps run [100s, 100s+90] on host 0 and [100s+30, 100s+120] on host 1.
    const auto r = MergedTimeline(dir.path().string()).merge_timeline(kBase + 195, kBase + 310);
    const auto x = only_x(read_output(r.output_path));
    ASSERT_FALSE(x.empty());
    for (const auto& e : x) {
        EXPECT_GE(e.ts + e.dur, kBase + 195) << e.name;
        EXPECT_LE(e.ts, kBase + 310) << e.name;
    }
    for (std::size_t i = 1; i < x.size(); ++i) EXPECT_LE(x[i - 1].ts, x[i].ts);
    std::size_t steps = 0;
    for (const auto& e : x) steps += e.name == "Step:ModeKeys.TRAIN";
    EXPECT_EQ(steps, 4u);  // host 0: steps 2 and 3; host 1: steps 1 and 2
    EXPECT_EQ(r.start_us, kBase + 195);
    EXPECT_NE(r.output_path.find(std::to_string(kBase + 310) + "_"), std::string::npos);
}

TEST(MergeRanges, StepRangeRunsFromStartStepToBeforeEndStep) {
    TempDir dir;
    two_hosts(dir.path());
    const auto r = MergedTimeline(dir.path().string()).merge_timeline(3, 5, MergeUnit::step);
    EXPECT_EQ(r.start_us, kBase + 300);
    EXPECT_EQ(r.end_us, kBase + 499);
    const auto x = only_x(read_output(r.output_path));
    ASSERT_FALSE(x.empty());
    for (const auto& e : x) {
        EXPECT_GE(e.ts + e.dur, kBase + 300);
        EXPECT_LE(e.ts, kBase + 499);
    }
    bool step3_host0 = false;
    for (const auto& e : x) step3_host0 = step3_host0 || (e.name == "Step:ModeKeys.TRAIN" && e.ts == kBase + 300);
    EXPECT_TRUE(step3_host0);
}

TEST(MergeRanges, HostsShareAPhaseButKeepTheirOwnThreads) {
    TempDir dir;
    two_hosts(dir.path());
    const auto r = MergedTimeline(dir.path().string()).merge_all();
    const auto all = read_output(r.output_path);
    const auto x = only_x(all);
    ASSERT_EQ(x.size(), 40u);
    // Interleaved on absolute time: host1's step 0 (base+30) comes after host0's fwd 0 (base+10).
    EXPECT_EQ(x[0].ts, kBase);
    EXPECT_EQ(x[1].ts, kBase + 10);
    EXPECT_EQ(x[2].ts, kBase + 30);
    EXPECT_EQ(x[0].pid, x[2].pid);
    EXPECT_NE(x[0].tid, x[2].tid);
    EXPECT_EQ(thread_name_of(all, x[0].pid, x[0].tid), "100-host0_0");
    EXPECT_EQ(thread_name_of(all, x[2].pid, x[2].tid), "101-host1_0");
    std::size_t process_names = 0, thread_names = 0;
    for (const auto& e : all) {
        process_names += e.ph == "M" && e.name == "process_name";
        thread_names += e.ph == "M" && e.name == "thread_name";
    }
    EXPECT_EQ(process_names, 2u);  // Step and Forward, once each
    EXPECT_EQ(thread_names, 4u);   // two phases x two hosts
    // Same input, same tids: nothing depends on hashing or run.
    const auto again = MergedTimeline(dir.path().string(), {}, (dir.path() / "again").string()).merge_all();
    EXPECT_EQ(read_text(again.output_path), read_text(r.output_path));
}

TEST(MergeRanges, NothingMatchingWritesAnEmptyArray) {
    TempDir dir;
    two_hosts(dir.path());
    const auto r = MergedTimeline(dir.path().string()).merge_timeline(1, 2);
    EXPECT_EQ(read_text(r.output_path), "[]");
    EXPECT_EQ(r.events_written, 0u);
}

TEST(MergeRanges, SuffixFilterLimitsTheInputs) {
    TempDir dir;
    two_hosts(dir.path());
    write_file(pevents_file(dir.path(), kBase + 5, "7-x", "model_timeline.json"),
               smdebug_timeline(kBase, {{"DataIterator", "next", 1, 1, ""}}));
    const auto r = MergedTimeline(dir.path().string(), {"model_timeline.json"}).merge_all();
    const auto x = only_x(read_output(r.output_path));
    ASSERT_EQ(x.size(), 1u);
    EXPECT_EQ(x[0].name, "next");
}

// Where a merge with this spill folder failed, or "" if it never needed the folder.
std::string spill_failure(const fs::path& root, const fs::path& out, const fs::path& spill_dir) {
    MergedTimeline merger(root.string(), {}, out.string());
    merger.set_memory_budget(1);
    merger.set_temp_dir(spill_dir.string());
    try {
        const auto r = merger.merge_all();
        std::string reasons;
        for (const auto& s : r.skipped) reasons += s.reason + "\n";
        return reasons;
    } catch (const ringprof::MergeError& e) {
        return e.what();
    }
}

TEST(MergeRanges, SpillingToDiskGivesTheSameFile) {
    TempDir dir;
    two_hosts(dir.path());
    // Enough events that the smallest memory budget (a few KiB) overflows many times.
    std::vector<PhaseEvent> many;
    for (int i = 0; i < 400; ++i) many.push_back({"Phase", "op" + std::to_string(i % 7), i * 3, 2, ""});
    write_file(pevents_file(dir.path(), kBase + 1500, "102-host2", "pythontimeline.json"),
               smdebug_timeline(kBase, many));
    MergedTimeline in_memory(dir.path().string(), {}, (dir.path() / "a").string());
    MergedTimeline spilled(dir.path().string(), {}, (dir.path() / "b").string());
    spilled.set_memory_budget(1);  // every few events go to a run file
    spilled.set_temp_dir(dir.path().string());
    in_memory.set_node_id("n");
    spilled.set_node_id("n");
    const auto a = in_memory.merge_all();
    const auto b = spilled.merge_all();
    EXPECT_EQ(read_text(a.output_path), read_text(b.output_path));
    EXPECT_EQ(a.events_written, 440u);
    EXPECT_TRUE(b.complete());
    // Proof that it spilled: the same merge, with a spill folder that cannot be created (its
    // parent is a file), fails naming the spill folder; in memory it needs no folder at all.
    write_file(dir.path() / "not_a_folder", "x");
    const std::string failure = spill_failure(dir.path(), dir.path() / "c", dir.path() / "not_a_folder");
    EXPECT_NE(failure.find("spill"), std::string::npos) << failure;
    EXPECT_NE(failure.find("not_a_folder"), std::string::npos) << failure;
    MergedTimeline unneeded(dir.path().string(), {}, (dir.path() / "d").string());
    unneeded.set_temp_dir((dir.path() / "not_a_folder").string());
    EXPECT_TRUE(unneeded.merge_all().complete()) << "the default budget holds these events in memory";
}

TEST(MergeRanges, EndBeforeStartIsRefused) {
    TempDir dir;
    two_hosts(dir.path());
    MergedTimeline merger(dir.path().string());
    EXPECT_THROW(merger.merge_timeline(kBase + 10, kBase, MergeUnit::time), ringprof::MergeError);
    EXPECT_THROW(merger.merge_timeline(5, 3, MergeUnit::step), ringprof::MergeError);
    EXPECT_THROW(merger.merge_timeline(3, 77, MergeUnit::step), ringprof::MergeError);  // no step 77
    for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_TRUE(e.is_directory()) << e.path();
}

}  // namespace
