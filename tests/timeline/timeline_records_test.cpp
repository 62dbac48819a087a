// The drainer -> writer records (drain/timeline_records.hpp) say what they are: decoding writes
// one record per span, step boundary and gauge sample, each of its own kind, and the writer
// turns each kind into what it is whatever values its fields hold (the former RawSpan took a
// span at depth 0xFFFFFFFF for a gauge, and a step ending at tick 0 for one still open).
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <set>

#include <cstring>
#include <vector>

#include "drain/aggregator.hpp"
#include "drain/clock_calibration.hpp"
#include "record/thread_ring.hpp"
#include "drain/thread_track.hpp"
#include "drain/timeline_records.hpp"
#include "timeline/timeline_writer.hpp"
#include "ringprof/ringprof.hpp"
#include "timeline_test_support.hpp"

namespace ringprof {
namespace {

using namespace ringprof::testing;

// The decoder hands on ringprof's own copy of a marker's site (drain/site_table.hpp): the same
// fields, never the marker's object, which an unloaded module takes with it.
::testing::AssertionResult copy_of(const Site* copy, const Site& marker) {
    if (copy == nullptr) return ::testing::AssertionFailure() << "no site";
    if (copy == &marker) return ::testing::AssertionFailure() << "the marker's own site, not a copy";
    if (std::strcmp(copy->name, marker.name) != 0 || std::strcmp(copy->function, marker.function) != 0 ||
        std::strcmp(copy->file, marker.file) != 0 || copy->line != marker.line) {
        return ::testing::AssertionFailure() << "'" << copy->name << "' copied as another site than '" << marker.name
                                             << "'";
    }
    return ::testing::AssertionSuccess();
}
using detail::Event;
using detail::EventKind;
using detail::TimelineRecord;
using Kind = detail::TimelineRecord::Kind;

// One decode of everything written to `ring` (a clock of 1 ns a tick) into a timeline stream;
// with `withheld`, the spans withheld (only counted there).
detail::TimelineRecords decode_ring(detail::ThreadRing& ring, detail::WithheldSpans* withheld = nullptr) {
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);
    detail::Aggregator aggregator(clock);
    detail::ThreadTrack track(&ring);
    detail::TimelineRecords stream;
    const std::uint64_t head = ring.ring().readable_head();
    EXPECT_EQ(aggregator.decode(track, ring.ring().tail(), head, &stream, withheld), head) << "decoded up to the head";
    return stream;
}

alignas(16) constexpr Site kWork{"work", "", "", 0};
alignas(16) constexpr Site kLoss{"loss", "", "", 0};

std::uint64_t bits_of(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

TEST(TimelineRecords, DecodingWritesAThreadRecordThenOneRecordPerSpanStepAndGaugeOfItsKind) {
    detail::ThreadRing ring(64);
    const Event events[] = {
        {100, detail::make_tag(std::uint64_t{3}, EventKind::StepBegin)},  // GLOBAL step 42
        {42, 0},
        {110, detail::make_tag(&kWork, EventKind::Begin)},
        {120, detail::make_tag(&kLoss, EventKind::Gauge)},
        {bits_of(0.5), 0},
        {130, detail::make_tag(&kWork, EventKind::End)},
        {140, detail::make_tag(std::uint64_t{3}, EventKind::StepEnd)},
    };
    ASSERT_TRUE(ring.ring().try_write(events, sizeof events / sizeof events[0]));
    const detail::TimelineRecords stream = decode_ring(ring);
    const std::vector<TimelineRecord> records = stream.decoded();

    ASSERT_EQ(records.size(), 7u);
    EXPECT_EQ(records[0].kind, Kind::Thread);
    EXPECT_EQ(records[0].tid(), ring.tid());
    EXPECT_EQ(records[0].thread_step(), std::nullopt) << "in no step";
    EXPECT_EQ(records[1].kind, Kind::StepBegin);
    EXPECT_EQ(records[1].step, 42);
    EXPECT_EQ(records[1].step_site(), &detail::kStepSites[3]);
    EXPECT_EQ(records[1].begin_ticks, 100u);
    EXPECT_EQ(records[2].kind, Kind::Thread) << "the thread's step changed";
    EXPECT_EQ(records[2].thread_step(), 42);
    EXPECT_EQ(records[3].kind, Kind::Gauge);
    EXPECT_TRUE(copy_of(records[3].site, kLoss));
    EXPECT_EQ(records[3].begin_ticks, 120u);
    EXPECT_EQ(records[3].value(), 0.5);
    EXPECT_EQ(records[4].kind, Kind::Span);
    EXPECT_TRUE(copy_of(records[4].site, kWork));
    EXPECT_EQ(records[4].begin_ticks, 110u);
    EXPECT_EQ(records[4].end_ticks, 130u);
    EXPECT_EQ(records[4].depth, 0u) << "steps are not scopes: no level of their own";
    EXPECT_EQ(records[5].kind, Kind::StepEnd);
    EXPECT_EQ(records[5].step, 42);
    EXPECT_EQ(records[5].begin_ticks, 100u);
    EXPECT_EQ(records[5].end_ticks, 140u);
    EXPECT_EQ(records[6].kind, Kind::Thread);
    EXPECT_EQ(records[6].thread_step(), std::nullopt);
}

// The pass the writer has no room for: the same events as above and a nest of three levels, with
// filters that keep depths 0-1 of 5 ticks or more.
TEST(TimelineRecords, APassWithItsSpansWithheldWritesItsStepsAndCountsItsSpansAsTheFiltersWould) {
    detail::ThreadRing ring(64);
    const Event events[] = {
        {100, detail::make_tag(std::uint64_t{3}, EventKind::StepBegin)},
        {42, 0},
        {110, detail::make_tag(&kWork, EventKind::Begin)},  // depth 0, 20 ticks: dropped
        {120, detail::make_tag(&kLoss, EventKind::Gauge)},  // a gauge sample: dropped
        {bits_of(0.5), 0},
        {121, detail::make_tag(&kWork, EventKind::Begin)},  // depth 1, 3 ticks: filtered (short)
        {122, detail::make_tag(&kLoss, EventKind::Begin)},  // depth 2: filtered (deep)
        {123, detail::make_tag(&kLoss, EventKind::End)},
        {124, detail::make_tag(&kWork, EventKind::End)},
        {130, detail::make_tag(&kWork, EventKind::End)},
        {131, detail::make_tag(&kWork, EventKind::Begin)},  // depth 0, 8 ticks: dropped
        {139, detail::make_tag(&kWork, EventKind::End)},
        {140, detail::make_tag(std::uint64_t{3}, EventKind::StepEnd)},
    };
    ASSERT_TRUE(ring.ring().try_write(events, sizeof events / sizeof events[0]));
    detail::WithheldSpans withheld;
    withheld.max_depth = 2;
    withheld.min_ticks = 5;
    const std::vector<TimelineRecord> records = decode_ring(ring, &withheld).decoded();

    EXPECT_EQ(withheld.dropped, 3u) << "two spans that pass the filters and the gauge sample";
    EXPECT_EQ(withheld.filtered, 2u);
    std::vector<Kind> kinds;
    for (const TimelineRecord& r : records) kinds.push_back(r.kind);
    EXPECT_EQ(kinds, (std::vector<Kind>{Kind::Thread, Kind::StepBegin, Kind::Thread, Kind::StepEnd, Kind::Thread}))
        << "the step and the thread it ran on, as with every span written";
    ASSERT_EQ(records.size(), 5u);
    EXPECT_EQ(records[3].step, 42);
    EXPECT_EQ(records[3].end_ticks, 140u);
}

TEST(TimelineRecords, ADecodeThatFindsNothingForTheTimelineWritesNoRecord) {
    detail::ThreadRing ring(64);
    const Event begin{100, detail::make_tag(&kWork, EventKind::Begin)};
    ASSERT_TRUE(ring.ring().try_write(&begin, 1));
    const detail::TimelineRecords records = decode_ring(ring);
    EXPECT_TRUE(records.empty()) << "an open scope is not on the timeline yet";
}

TEST(TimelineRecords, ASpanTakesOneSixteenByteSlotWhenItsValuesFit) {
    detail::ThreadRing ring(1024);
    std::vector<Event> events;
    for (std::uint64_t k = 0; k < 100; ++k) {                       // 100 spans, two levels, ticks as a TSC gives them
        const std::uint64_t t = 0xFFFF'FFF0'0000'0000u + 1000 * k;  // near the counter's wrap
        events.push_back({t, detail::make_tag(&kWork, EventKind::Begin)});
        events.push_back({t + 10, detail::make_tag(&kLoss, EventKind::Begin)});
        events.push_back({t + 20, detail::make_tag(&kLoss, EventKind::End)});
        events.push_back({t + 900, detail::make_tag(&kWork, EventKind::End)});
    }
    ASSERT_TRUE(ring.ring().try_write(events.data(), events.size()));
    const detail::TimelineRecords stream = decode_ring(ring);
    EXPECT_EQ(stream.records(), 201u);
    EXPECT_EQ(stream.slots(), 202u) << "two for the Thread record, one per span";
    EXPECT_EQ(sizeof(detail::TimelineRecords::Slot), 16u);
    const std::vector<TimelineRecord> records = stream.decoded();
    ASSERT_EQ(records.size(), 201u);
    EXPECT_TRUE(copy_of(records[1].site, kLoss));
    EXPECT_EQ(records[1].begin_ticks, 0xFFFF'FFF0'0000'0000u + 10);
    EXPECT_EQ(records[1].end_ticks, 0xFFFF'FFF0'0000'0000u + 20);
    EXPECT_EQ(records[1].depth, 1u);
    EXPECT_TRUE(copy_of(records[200].site, kWork));
    EXPECT_EQ(records[200].begin_ticks, 0xFFFF'FFF0'0000'0000u + 99'000);
    EXPECT_EQ(records[200].end_ticks, 0xFFFF'FFF0'0000'0000u + 99'900);
    EXPECT_EQ(records[200].depth, 0u);
}

// The decode loop appends compact spans through a cursor of its own and hands the stream's end
// back around every other record: long spans, gauges and steps land between compact spans, and
// the stream regrows (past 4,096 and 8,192 slots) in the middle of one decode, in order
// and without a record lost, overwritten or duplicated.
TEST(TimelineRecords, CompactSpansAndEveryOtherRecordKeepTheirOrderAcrossTheStreamsRegrowth) {
    constexpr std::uint64_t kSpans = 10'000;
    detail::ThreadRing ring(1 << 15);
    std::vector<Event> events;
    std::vector<TimelineRecord> expected;
    const std::uint64_t t0 = 1'000'000;
    for (std::uint64_t k = 0; k < kSpans; ++k) {
        const std::uint64_t t = t0 + 1000 * k;
        if (k % 500 == 0) {  // a gauge sample: two slots
            events.push_back({t, detail::make_tag(&kLoss, EventKind::Gauge)});
            events.push_back({bits_of(static_cast<double>(k)), 0});
            expected.push_back(TimelineRecord::gauge(&kLoss, t, static_cast<double>(k)));
        }
        if (k == kSpans / 2) {  // a step opens: its record and the thread's new step
            events.push_back({t, detail::make_tag(std::uint64_t{1}, EventKind::StepBegin)});
            events.push_back({7, 0});
            expected.push_back(TimelineRecord::step_begin(1, 7, t, 0));
            expected.push_back(TimelineRecord::thread(0, 7, t0));  // the pass's first tick: its base
        }
        // Every seventh span too long for one slot.
        const std::uint64_t width = k % 7 == 0 ? (std::uint64_t{1} << 33) + k : 10 + k % 5;
        events.push_back({t + 1, detail::make_tag(&kWork, EventKind::Begin)});
        events.push_back({t + 1 + width, detail::make_tag(&kWork, EventKind::End)});
        expected.push_back(TimelineRecord::span(&kWork, t + 1, t + 1 + width, 0));
        if (k == kSpans / 2 + 1) {
            events.push_back({t + 2 + width, detail::make_tag(std::uint64_t{1}, EventKind::StepEnd)});
            expected.push_back(TimelineRecord::step_end(1, 7, t0 + 1000 * (kSpans / 2), t + 2 + width, 0));
            expected.push_back(TimelineRecord::thread(0, std::nullopt, t0));
        }
    }
    ASSERT_TRUE(ring.ring().try_write(events.data(), events.size()));
    const detail::TimelineRecords stream = decode_ring(ring);
    ASSERT_GT(stream.slots(), 8'192u) << "the stream regrew twice during the decode";

    const std::vector<TimelineRecord> records = stream.decoded();
    ASSERT_EQ(records.size(), expected.size() + 1);
    EXPECT_EQ(records[0].kind, Kind::Thread);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const TimelineRecord& got = records[i + 1];
        const TimelineRecord& want = expected[i];
        ASSERT_EQ(got.kind, want.kind) << "record " << i + 1;
        EXPECT_EQ(got.begin_ticks, want.begin_ticks) << "record " << i + 1;
        if (want.kind == Kind::Thread) {
            EXPECT_EQ(got.tid(), records[0].tid()) << "record " << i + 1;
            EXPECT_EQ(got.step, want.step) << "record " << i + 1;
            continue;
        }
        EXPECT_EQ(got.end_ticks, want.end_ticks) << "record " << i + 1;
        if (want.is_step()) {
            EXPECT_EQ(got.step, want.step) << "record " << i + 1;
        } else {
            EXPECT_TRUE(copy_of(got.site, *want.site)) << "record " << i + 1;
            EXPECT_EQ(got.depth, want.depth) << "record " << i + 1;
        }
    }
}

// The compact form's limits, each side of each: what goes in comes out, in one slot or two.
TEST(TimelineRecords, EverySpanComesOutAsItWentInWhetherItsValuesFitOneSlotOrNot) {
    const std::uint64_t base = 5'000'000'000u;
    const auto* high_site = reinterpret_cast<const Site*>(std::uintptr_t{1} << 52 | 0x40);  // never read
    struct Case {
        const Site* site;
        std::uint64_t begin, end;
        std::uint32_t depth;
        std::size_t slots;
    };
    const Case cases[] = {
        {&kWork, base, base, 0, 1},
        {&kWork, base - (std::uint64_t{1} << 31), base, 3, 1},      // as early as fits
        {&kWork, base - (std::uint64_t{1} << 31) - 1, base, 3, 2},  // one tick earlier
        {&kWork, base + (std::uint64_t{1} << 31) - 1, base + (std::uint64_t{1} << 31), 0, 1},
        {&kWork, base + (std::uint64_t{1} << 31), base + (std::uint64_t{1} << 31) + 1, 0, 2},
        {&kWork, base, base + 0xFFFF'FFFFu, 0, 1},  // the longest that fits
        {&kWork, base, base + 0x1'0000'0000u, 0, 2},
        {&kWork, base, base + 1, 0xFFFF, 1},  // the deepest that fits
        {&kWork, base, base + 1, 0x1'0000, 2},
        {&kWork, base, base + 1, 0xFFFF'FFFFu, 2},
        {nullptr, base, base + 1, 0, 1},
        {high_site, base, base + 1, 0, 2},
        {&kWork, base + 7, base + 3, 0, 2},  // ends before it begins
    };
    for (const Case& c : cases) {
        detail::TimelineRecords stream;
        stream.append(TimelineRecord::thread(9, 4, base));
        const std::size_t after_thread = stream.slots();
        stream.append_span(c.site, c.begin, c.end, c.depth);
        EXPECT_EQ(stream.slots() - after_thread, c.slots)
            << "begin " << c.begin << " end " << c.end << " depth " << c.depth;
        const std::vector<TimelineRecord> records = stream.decoded();
        ASSERT_EQ(records.size(), 2u);
        EXPECT_EQ(records[0].kind, Kind::Thread);
        EXPECT_EQ(records[0].tid(), 9u);
        EXPECT_EQ(records[0].step, 4);
        EXPECT_EQ(records[1].kind, Kind::Span);
        EXPECT_EQ(records[1].site, c.site);
        EXPECT_EQ(records[1].begin_ticks, c.begin);
        EXPECT_EQ(records[1].end_ticks, c.end);
        EXPECT_EQ(records[1].depth, c.depth);
    }
}

TEST(TimelineRecords, EachThreadsSpansCountFromItsOwnThreadRecord) {
    detail::TimelineRecords stream{TimelineRecord::thread(1, std::nullopt, 1'000), TimelineRecord::span(&kWork, 1'100, 1'200, 0),
                                   TimelineRecord::thread(2, std::nullopt, 9'000'000'000u),
                                   TimelineRecord::span(&kLoss, 9'000'000'100u, 9'000'000'200u, 2)};
    EXPECT_EQ(stream.slots(), 6u);
    detail::TimelineRecords copy;
    copy.append_all(stream);
    copy.append_span(&kWork, 9'000'000'300u, 9'000'000'400u, 1);  // after the copy: thread 2's base
    const std::vector<TimelineRecord> records = copy.decoded();
    ASSERT_EQ(records.size(), 5u);
    EXPECT_EQ(records[1].begin_ticks, 1'100u);
    EXPECT_EQ(records[3].begin_ticks, 9'000'000'100u);
    EXPECT_EQ(records[3].end_ticks, 9'000'000'200u);
    EXPECT_EQ(records[4].begin_ticks, 9'000'000'300u);
    EXPECT_EQ(copy.slots(), 7u);
}

// Records whatever the writer delivers, counters with their thread.
class KindsBackend : public TimelineBackend {
public:
    const char* name() const override { return "kinds"; }
    void on_spans(const SpanBatch& b) override { spans.insert(spans.end(), b.spans.begin(), b.spans.end()); }
    void on_counter(const char* n, std::uint64_t, std::uint32_t tid, double v) override {
        counters.push_back({n, tid, v});
    }
    struct Counter {
        std::string name;
        std::uint32_t tid;
        double value;
    };
    std::vector<Span> spans;
    std::vector<Counter> counters;
};

TEST(TimelineRecords, EveryKindReachesTheBackendsAsWhatItIsWhateverItsValues) {
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);
    detail::TimelineWriter writer(clock, detail::TimelineOptions{});
    KindsBackend backend;
    writer.add_backend(&backend);
    writer.start();
    detail::TimelineRecords records{
        TimelineRecord::thread(7, 5),
        // Values the old encoding read as a gauge (depth 0xFFFFFFFF) and as an open step (end 0).
        TimelineRecord::span(&kWork, 0, 0, 0xFFFFFFFFu),
        TimelineRecord::step_begin(1, 9, 0, 0),
        TimelineRecord::step_end(1, 9, 0, 0, 0),
        TimelineRecord::thread(8, 6),
        TimelineRecord::gauge(&kLoss, 50, -1.0),
    };
    writer.on_pass(records, {{7, "seven"}, {8, "eight"}});
    writer.stop();

    ASSERT_EQ(backend.spans.size(), 2u);
    EXPECT_STREQ(backend.spans[0].name, "work");
    EXPECT_EQ(backend.spans[0].depth, 0xFFFFFFFFu);
    EXPECT_EQ(backend.spans[0].tid, 7u);
    EXPECT_EQ(backend.spans[0].step, 5) << "the step of its Thread record";
    EXPECT_EQ(backend.spans[1].site, &detail::kStepSites[1]);
    EXPECT_EQ(backend.spans[1].step, 9);
    EXPECT_EQ(backend.spans[1].tid, 7u);
    ASSERT_EQ(backend.counters.size(), 1u);
    EXPECT_EQ(backend.counters[0].name, "loss");
    EXPECT_EQ(backend.counters[0].tid, 8u) << "the thread of the Thread record before it";
    EXPECT_EQ(backend.counters[0].value, -1.0);
}

// "In no step" is a flag, not a number: a thread in step -1 or INT64_MIN labels its spans with it,
// a thread in no step labels none, through the encoding and the writer.
TEST(TimelineRecords, AThreadsStepIsAnyInt64OrNoneAndItsSpansCarryIt) {
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);
    detail::TimelineWriter writer(clock, detail::TimelineOptions{});
    KindsBackend backend;
    writer.add_backend(&backend);
    writer.start();
    const std::vector<std::optional<std::int64_t>> steps = {
        std::nullopt, -1, -2, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 0};
    detail::TimelineRecords records;
    for (const auto& step : steps) {
        records.append(TimelineRecord::thread(7, step, 100));
        records.append_span(&kWork, 100, 200, 0);  // compact
        records.append(TimelineRecord::span(&kWork, 100, 100 + (std::uint64_t{1} << 40), 0));  // long
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const TimelineRecord r = records.decoded()[3 * i];
        EXPECT_EQ(r.thread_step(), steps[i]) << i;
    }
    writer.on_pass(records, {{7, "seven"}});
    writer.stop();
    // Spans of a thread in no step wait for a step found by time, so they may come later.
    std::multiset<std::optional<std::int64_t>> expected, got;
    for (const auto& step : steps) expected.insert({step, step});
    for (const Span& s : backend.spans) got.insert(s.has_step ? std::optional<std::int64_t>(s.step) : std::nullopt);
    EXPECT_EQ(got, expected);
}

TEST(TimelineRecords, FiltersAndOverflowKeepStepsAndTheThreadTheyBelongTo) {
    detail::ClockCalibration clock(
        +[]() -> std::uint64_t { return 0; }, 1e-9);
    detail::TimelineOptions options;
    options.queue_spans = 1;  // the second pass, two spans (steps are not counted), never fits
    options.max_depth = 1;
    detail::TimelineWriter writer(clock, options);
    KindsBackend backend;
    writer.add_backend(&backend);
    writer.start();
    detail::TimelineRecords fits{TimelineRecord::thread(3, std::nullopt), TimelineRecord::span(&kWork, 10, 20, 0),
                                 TimelineRecord::span(&kWork, 12, 18, 1)};  // filtered: too deep
    detail::TimelineRecords overflows{TimelineRecord::thread(4, std::nullopt),
                                      TimelineRecord::span(&kWork, 30, 40, 0),
                                      TimelineRecord::span(&kWork, 31, 39, 0),
                                      TimelineRecord::step_begin(0, 1, 41, 0),
                                      TimelineRecord::thread(4, 1),
                                      TimelineRecord::step_end(0, 1, 41, 50, 0),
                                      TimelineRecord::thread(4, std::nullopt)};
    writer.on_pass(fits, {{3, "three"}});
    writer.on_pass(overflows, {{4, "four"}});
    writer.stop();
    EXPECT_EQ(writer.filtered_spans(), 1u);
    EXPECT_EQ(writer.dropped_spans(), 2u) << "both spans of the pass that did not fit, and nothing else";
    ASSERT_EQ(backend.spans.size(), 2u);
    EXPECT_EQ(backend.spans[0].tid, 3u);
    EXPECT_EQ(backend.spans[1].site, &detail::kStepSites[0]);
    EXPECT_EQ(backend.spans[1].tid, 4u) << "the step keeps its thread";
    EXPECT_EQ(backend.spans[1].step, 1);
}

}  // namespace
}  // namespace ringprof
