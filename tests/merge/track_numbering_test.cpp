// TrackNumbering: tids in the order tracks first appear in the file, pids per phase from smdebug's
// ranges in the same order, and the metadata lines each track is announced with.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "merge/track_numbering.hpp"

namespace {

using ringprof::detail::TraceNumber;
using ringprof::detail::TrackFirst;
using ringprof::detail::TrackNumbering;

TrackFirst first(std::uint32_t thread, std::uint32_t phase, TraceNumber start, std::uint64_t seq) {
    TrackFirst f;
    f.thread = thread;
    f.phase = phase;
    f.start = start;
    f.seq = seq;
    return f;
}

const std::vector<std::string> kPhases = {"Forward", "Step:ModeKeys.TRAIN", "my \"phase\"", "Backward"};
const std::vector<std::string> kThreads = {"a_0", "b_0", "c_0", "d_0", "e_0", "never_0"};

TEST(TrackNumbering, TidsFollowEachTracksEarliestEventTiesBySeq) {
    // Given out of order; thread 5 has no events (a rolled-back file registered it).
    const TrackNumbering n({first(3, 0, TraceNumber::integer(50), 7), first(0, 0, TraceNumber::integer(20), 9),
                            first(4, 1, TraceNumber::floating(20.0), 3), first(1, 2, TraceNumber::integer(10), 1),
                            first(2, 3, TraceNumber::floating(49.5), 0)},
                           kPhases, kThreads);
    // Order: thread 1 (10), thread 4 (20.0, seq 3), thread 0 (20, seq 9), thread 2 (49.5), thread 3 (50).
    EXPECT_EQ(n[1].middle, R"(, "pid": 1000000, "tid": 1, "ph": "X", "ts": )");
    EXPECT_EQ(n[4].middle, R"(, "pid": 1, "tid": 2, "ph": "X", "ts": )");
    EXPECT_EQ(n[0].middle, R"(, "pid": 10000, "tid": 3, "ph": "X", "ts": )");
    EXPECT_EQ(n[2].middle, R"(, "pid": 20000, "tid": 4, "ph": "X", "ts": )");
    EXPECT_EQ(n[3].middle, R"(, "pid": 10000, "tid": 5, "ph": "X", "ts": )");
    EXPECT_EQ(n[4].first_seq, 3u);
    EXPECT_EQ(n[5].first_seq, TrackNumbering::kNoEvent);
    EXPECT_TRUE(n[5].announce.empty());
}

TEST(TrackNumbering, TheFirstTrackOfAPhaseAnnouncesTheProcessTheOthersOnlyTheirThread) {
    const TrackNumbering n({first(0, 0, TraceNumber::integer(1), 0), first(3, 0, TraceNumber::integer(2), 1),
                            first(1, 2, TraceNumber::integer(3), 2)},
                           kPhases, kThreads);
    EXPECT_EQ(
        n[0].announce,
        ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 10000, \"args\": {\"name\": \"Forward\"}}"
        ",\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 10000, \"args\": {\"sort_index\": 10000}}"
        ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 10000, \"tid\": 1, \"args\": {\"name\": \"a_0\"}}");
    EXPECT_EQ(n[0].announce_lines, 3u);
    EXPECT_EQ(
        n[3].announce,
        ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 10000, \"tid\": 2, \"args\": {\"name\": \"d_0\"}}");
    EXPECT_EQ(n[3].announce_lines, 1u);
    // Names are escaped as JSON strings.
    EXPECT_NE(n[1].announce.find(R"("args": {"name": "my \"phase\""}})"), std::string::npos) << n[1].announce;
}

TEST(TrackNumbering, EachRangeCountsUpOnItsOwn) {
    const std::vector<std::string> phases = {"Step:1", "Step:2", "x", "y"};
    const TrackNumbering n({first(0, 2, TraceNumber::integer(1), 0), first(1, 0, TraceNumber::integer(2), 0),
                            first(2, 3, TraceNumber::integer(3), 0), first(3, 1, TraceNumber::integer(4), 0)},
                           phases, {"t0", "t1", "t2", "t3"});
    EXPECT_EQ(n[0].middle.substr(0, 18), R"(, "pid": 1000000, )");
    EXPECT_EQ(n[1].middle.substr(0, 12), R"(, "pid": 1, )");
    EXPECT_EQ(n[2].middle.substr(0, 18), R"(, "pid": 1000001, )");
    EXPECT_EQ(n[3].middle.substr(0, 12), R"(, "pid": 2, )");
}

}  // namespace
