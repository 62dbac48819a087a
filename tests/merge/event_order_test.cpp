// The merge's one order of events: the packed keys of the store's index order exactly as the
// events they pack, and a file's rank follows smdebug's reading order.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "merge/event_order.hpp"

namespace m = ringprof::detail;
using ringprof::detail::TraceNumber;

TEST(EventOrder, PackedKeysOrderAsTheEventsTheyPack) {
    std::mt19937_64 rng(7);
    std::vector<std::pair<TraceNumber, std::uint64_t>> events;
    // Integer and float starts that tie, straddle each other and go negative; seqs from several ranks.
    for (int k = 0; k < 400; ++k) {
        const std::int64_t v = static_cast<std::int64_t>(rng() % 21) - 10;
        const TraceNumber start = rng() % 3 == 0
                                      ? TraceNumber::floating(static_cast<double>(v) + (rng() % 2 ? 0.5 : 0.0))
                                      : TraceNumber::integer(v);
        events.emplace_back(start, m::event_seq(rng() % 5, rng() % 4));
    }
    int disagreements = 0, before_count = 0;
    for (const auto& [a, sa] : events) {
        for (const auto& [b, sb] : events) {
            const bool unpacked = m::event_before(a, sa, b, sb);
            before_count += unpacked;
            disagreements += unpacked != m::event_before(m::PackedEventKey(a, sa), m::PackedEventKey(b, sb));
        }
    }
    EXPECT_EQ(disagreements, 0);
    EXPECT_GT(before_count, 0);
}

TEST(EventOrder, AKeyGivesBackItsStartAndSeq) {
    const m::PackedEventKey f(TraceNumber::floating(-2.5), m::event_seq(3, 9));
    EXPECT_TRUE(f.start().is_float);
    EXPECT_EQ(f.start().d, -2.5);
    EXPECT_EQ(f.seq(), m::event_seq(3, 9));
    const m::PackedEventKey i(TraceNumber::integer(-7), 4);
    EXPECT_FALSE(i.start().is_float);
    EXPECT_EQ(i.start().i, -7);
    EXPECT_EQ(i.seq(), 4u);
}

TEST(EventOrder, EveryEventOfALowerRankedFileComesFirstAmongEqualStarts) {
    const TraceNumber t = TraceNumber::integer(100);
    EXPECT_TRUE(m::event_before(t, m::event_seq(0, (std::uint64_t{1} << m::kRankShift) - 1), t, m::event_seq(1, 0)));
    EXPECT_FALSE(m::event_before(t, m::event_seq(1, 0), t, m::event_seq(0, 5)));
}

m::TraceFile file(const char* path, m::SourceKind kind, std::int64_t end_us) {
    m::TraceFile f;
    f.path = path;
    f.kind = kind;
    f.timestamp = end_us;
    return f;
}

TEST(EventOrder, FilesRankByKindThenEndTimeThenPath) {
    const m::TraceFile py_late = file("b", m::SourceKind::pythontimeline, 200);
    const m::TraceFile py_early = file("z", m::SourceKind::pythontimeline, 100);
    const m::TraceFile py_early_a = file("a", m::SourceKind::pythontimeline, 100);
    const m::TraceFile horovod = file("a", m::SourceKind::horovod, 1);
    EXPECT_TRUE(m::reads_before(py_late, horovod));
    EXPECT_TRUE(m::reads_before(py_early, py_late));
    EXPECT_TRUE(m::reads_before(py_early_a, py_early));
    EXPECT_FALSE(m::reads_before(py_early, py_early));
}
