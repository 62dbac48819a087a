// The drainer -> timeline writer contract: what the drainer decoded that a timeline shows, in
// raw ticks and in decode order, each record saying what it is. The drainer only copies fields
// it already holds; the writer thread does every conversion (ticks to ns, step labels, names).
//
// One stream, in decode order, so the writer sees a step open before any span it must label.
// A record is 32 bytes, and which fields mean what depends on its kind:
//
//   kind       site/step         begin_ticks   end_ticks / value   depth / tid
//   Thread     step: its step    -             -                   tid
//   Span       site              begin         end                 depth
//   StepBegin  step: its number  begin         -                   depth
//   StepEnd    step: its number  begin         end                 depth
//   Gauge      site              sample time   value (a double)    -
//
// Spans, steps and gauges belong to the thread named by the last Thread record before them; a
// Thread record also says which step that thread is in (-1: none), the label of its spans that
// follows. The drainer writes one before each thread's records and after each step record.
// (The former RawSpan carried tid and step in every span, 40 bytes, and gauges and step
// openings as sentinel values; the bytes written per span were most of what timelines cost
// the drainer: bench_pipeline's BM_DrainerAggregation.)
#pragma once

#include <cstdint>
#include <cstring>

#include "ringprof/site.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::detail {

struct TimelineRecord {
    enum class Kind : std::uint8_t { Thread, Span, StepBegin, StepEnd, Gauge };

    // Not an aggregate: emplace_back then stores the fields straight into the vector. A
    // temporary copied in whole read back its fields' narrower stores before they had retired
    // (a store-forwarding stall, perf annotate of BM_DrainerAggregation).
    TimelineRecord() = default;
    TimelineRecord(Kind k, std::uint8_t step_mode, std::uint32_t depth_or_tid, const Site* s, std::uint64_t begin,
                   std::uint64_t end)
        : kind(k), mode(step_mode), depth(depth_or_tid), site(s), begin_ticks(begin), end_ticks(end) {}

    static TimelineRecord thread(std::uint32_t tid, std::int64_t step) {
        TimelineRecord r(Kind::Thread, 0, tid, nullptr, 0, 0);
        r.step = step;
        return r;
    }
    static TimelineRecord span(const Site* site, std::uint64_t begin, std::uint64_t end, std::uint32_t depth) {
        return TimelineRecord(Kind::Span, 0, depth, site, begin, end);
    }
    static TimelineRecord step_begin(std::uint32_t step_mode, std::int64_t number, std::uint64_t begin,
                                     std::uint32_t depth) {
        TimelineRecord r(Kind::StepBegin, static_cast<std::uint8_t>(step_mode & 3u), depth, nullptr, begin, 0);
        r.step = number;
        return r;
    }
    static TimelineRecord step_end(std::uint32_t step_mode, std::int64_t number, std::uint64_t begin,
                                   std::uint64_t end, std::uint32_t depth) {
        TimelineRecord r(Kind::StepEnd, static_cast<std::uint8_t>(step_mode & 3u), depth, nullptr, begin, end);
        r.step = number;
        return r;
    }
    static TimelineRecord gauge(const Site* site, std::uint64_t ticks, double value) {
        std::uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        return TimelineRecord(Kind::Gauge, 0, 0, site, ticks, bits);
    }

    bool is_step() const { return kind == Kind::StepBegin || kind == Kind::StepEnd; }
    // Thread: the thread's id. Span, StepBegin, StepEnd: nesting depth.
    std::uint32_t tid() const { return depth; }
    // StepBegin, StepEnd: the site a step appears under in the timelines.
    const Site* step_site() const { return &kStepSites[mode & 3u]; }
    // Gauge: the sampled value.
    double value() const {
        double v;
        std::memcpy(&v, &end_ticks, sizeof v);
        return v;
    }

    Kind kind = Kind::Span;
    std::uint8_t mode = 0;    // StepBegin, StepEnd: the StepMode
    std::uint32_t depth = 0;  // see tid()
    union {
        const Site* site = nullptr;  // Span, Gauge
        std::int64_t step;           // Thread, StepBegin, StepEnd
    };
    std::uint64_t begin_ticks = 0;
    std::uint64_t end_ticks = 0;  // see value()
};

static_assert(sizeof(TimelineRecord) == 32, "the bytes the drainer writes per span");

}  // namespace ringprof::detail
