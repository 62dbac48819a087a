// The drainer -> timeline writer contract: what the drainer decoded that a timeline shows, in
// raw ticks and in decode order, each record saying what it is. The drainer only copies fields
// it already holds; the writer thread does every conversion (ticks to ns, step labels, names).
//
// One stream, in decode order, so the writer sees a step open before any span it must label.
// A record (TimelineRecord, the decoded form) holds, by kind:
//
//   kind       site/step         begin_ticks   end_ticks / value   depth / tid
//   Thread     step: its step    base          -                   tid
//   Span       site              begin         end                 depth
//   StepBegin  step: its number  begin         -                   depth
//   StepEnd    step: its number  begin         end                 depth
//   Gauge      site              sample time   value (a double)    -
//
// Spans, steps and gauges belong to the thread named by the last Thread record before them; a
// Thread record also says which step that thread is in, if any (every int64 is a step number,
// so "none" is a flag of its own, never a number), the label of its spans that
// follows, and the base tick its spans' compact form counts from. The drainer writes one before
// each thread's records and after each step record.
//
// TimelineRecords, the stream itself, stores records in 16-byte slots. A span, nearly the whole
// stream, takes one: its site pointer with the depth in the pointer's unused top 16 bits, and
// begin (counted from the Thread record's base) and width in 32 bits each. Every other record,
// and a span whose values do not fit (a scope over ~1 s from the base or longer than ~2 s at
// 2 GHz, a depth of 65,536 or more, a pointer using the top 16 bits), takes two slots holding
// every field in full; the low bits of the first word, zero in a Site pointer (aligned to 16),
// say which. The bytes written per span are most of what timelines cost the drainer, so a span
// takes the fewest that hold it: one slot of 16 (the wider layouts measured before it, and their
// rates, are in docs/perf/drain.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ringprof/site.hpp"
#include "ringprof/steps.hpp"

namespace ringprof::detail {

// The part of a ring range the timeline writer has no room for (timeline_writer.hpp,
// backpressure) is decoded with its spans withheld: its steps and Thread records are written as
// ever, and its spans and gauge samples are only counted here, split as the writer's filters
// would have split them. Writing them only for the writer to drop them cost the drainer, flat
// out, the copy of every pass and the page faults of buffers grown for it (bench_pipeline,
// BM_PipelineFlatOut).
struct WithheldSpans {
    std::uint32_t max_depth = ~std::uint32_t{0};  // the writer's filters (TimelineOptions)
    std::uint64_t min_ticks = 0;
    std::uint64_t dropped = 0;   // spans and gauge samples the timeline loses
    std::uint64_t filtered = 0;  // spans the filters leave out anyway

    void count_span(std::uint32_t depth, std::uint64_t width_ticks) {
        ++(depth >= max_depth || width_ticks < min_ticks ? filtered : dropped);
    }
};

struct TimelineRecord {
    enum class Kind : std::uint8_t { Thread, Span, StepBegin, StepEnd, Gauge };

    // Not an aggregate: emplace_back then stores the fields straight into the vector. A
    // temporary copied in whole read back its fields' narrower stores before they had retired
    // (a store-forwarding stall, perf annotate of BM_DrainerAggregation).
    TimelineRecord() = default;
    TimelineRecord(Kind k, std::uint8_t step_mode, std::uint32_t depth_or_tid, const Site* s, std::uint64_t begin,
                   std::uint64_t end)
        : kind(k), mode(step_mode), depth(depth_or_tid), site(s), begin_ticks(begin), end_ticks(end) {}

    // `step`: the step the thread is in (std::nullopt: none). `base_ticks`: what the compact form
    // of the thread's spans counts from (any tick near them).
    static TimelineRecord thread(std::uint32_t tid, std::optional<std::int64_t> step, std::uint64_t base_ticks = 0) {
        TimelineRecord r(Kind::Thread, step.has_value() ? 1 : 0, tid, nullptr, base_ticks, 0);
        r.step = step.value_or(0);
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
    static TimelineRecord step_end(std::uint32_t step_mode, std::int64_t number, std::uint64_t begin, std::uint64_t end,
                                   std::uint32_t depth) {
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
    // Thread: the step the thread is in, if any.
    std::optional<std::int64_t> thread_step() const {
        return mode != 0 ? std::optional<std::int64_t>(step) : std::nullopt;
    }
    // StepBegin, StepEnd: the site a step appears under in the timelines.
    const Site* step_site() const { return &kStepSites[mode & 3u]; }
    // Gauge: the sampled value.
    double value() const {
        double v;
        std::memcpy(&v, &end_ticks, sizeof v);
        return v;
    }

    Kind kind = Kind::Span;
    std::uint8_t mode = 0;    // StepBegin, StepEnd: the StepMode. Thread: 1 if it is in a step
    std::uint32_t depth = 0;  // see tid()
    union {
        const Site* site = nullptr;  // Span, Gauge
        std::int64_t step;           // Thread, StepBegin, StepEnd
    };
    std::uint64_t begin_ticks = 0;
    std::uint64_t end_ticks = 0;  // see value()
};

// The encoded stream of records (see the top of this file). Appending a span is inline and
// writes one slot; everything else goes out of line.
class TimelineRecords {
public:
    struct Slot {
        std::uint64_t first;
        std::uint64_t second;
    };

    TimelineRecords() = default;
    TimelineRecords(std::initializer_list<TimelineRecord> records);
    TimelineRecords(TimelineRecords&& other) noexcept { swap(other); }
    TimelineRecords& operator=(TimelineRecords&& other) noexcept {
        TimelineRecords gone(std::move(*this));
        swap(other);
        return *this;
    }
    TimelineRecords(const TimelineRecords&) = delete;
    TimelineRecords& operator=(const TimelineRecords&) = delete;

    // A span's site and depth as the first word of its compact form, or kNoSpanWord when they
    // do not fit in it. The same for every span of a call-tree node: computed once per node.
    static constexpr std::uint64_t kNoSpanWord = ~std::uint64_t{0};
    static std::uint64_t span_word(const Site* site, std::uint32_t depth) {
        const auto site_bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(site));
        if ((site_bits >> kDepthShift | depth >> (64 - kDepthShift)) != 0) return kNoSpanWord;
        return site_bits | std::uint64_t{depth} << kDepthShift;
    }

    // The stream's end as a value the decode loop owns: appending through the stream itself, each
    // span loaded the stream's pointer, then its end, limit and base through it, and stored its end
    // back (the slots' 64-bit stores may alias its 64-bit fields, so nothing stayed in a register).
    // As a local the same 22 instructions a span read the fields straight from the loop's frame
    // (0.84-0.90 of the timers-only rate in BM_DrainerSpansPaired at load 2-2.5; the run before it
    // is in docs/perf/drain.md). Taken by cursor(), handed back by advance_to(); in between, only
    // the cursor appends.
    class SpanCursor {
    public:
        // The hot one: a span of the thread of the last Thread record appended, `word` being
        // span_word(site, depth), in one slot. False, with nothing appended, when it needs two:
        // append(TimelineRecord::span(...)) then. (The caller looks the site and depth up only
        // then: passed in, they were computed for every span, callgrind.)
        bool try_append(std::uint64_t word, std::uint64_t begin_ticks, std::uint64_t end_ticks) {
            const std::uint64_t offset = begin_ticks - biased_base_;
            const std::uint64_t width = end_ticks - begin_ticks;
            if ((offset | width) >> 32 != 0 || word == kNoSpanWord || end_ == limit_) return false;
            end_->first = word;
            end_->second = offset | width << 32;
            ++end_;
            return true;
        }

    private:
        friend class TimelineRecords;
        Slot* end_ = nullptr;
        Slot* limit_ = nullptr;
        std::uint64_t biased_base_ = 0;  // the base less kOffsetBias: one subtraction a span
    };
    SpanCursor cursor() const {
        SpanCursor c;
        c.end_ = end_;
        c.limit_ = limit_;
        c.biased_base_ = base_ticks_ - kOffsetBias;
        return c;
    }
    void advance_to(const SpanCursor& c) { end_ = c.end_; }

    bool try_append_compact_span(std::uint64_t word, std::uint64_t begin_ticks, std::uint64_t end_ticks) {
        SpanCursor c = cursor();
        if (!c.try_append(word, begin_ticks, end_ticks)) return false;
        advance_to(c);
        return true;
    }
    void append_span(const Site* site, std::uint64_t begin_ticks, std::uint64_t end_ticks, std::uint32_t depth) {
        if (!try_append_compact_span(span_word(site, depth), begin_ticks, end_ticks)) {
            append(TimelineRecord::span(site, begin_ticks, end_ticks, depth));
        }
    }
    // Any record, in its compact form when it has one.
    void append(const TimelineRecord& r);
    // `other`'s records after these (the same records: each thread's base travels with it).
    void append_all(const TimelineRecords& other);

    bool empty() const { return end_ == begin_; }
    std::size_t slots() const { return static_cast<std::size_t>(end_ - begin_); }
    std::size_t capacity_slots() const { return static_cast<std::size_t>(limit_ - begin_); }
    std::size_t records() const { return slots() - long_records_; }
    // Spans and gauge samples: what a writer that has fallen behind drops, and so what its
    // queue's budget counts (Thread and step records are never dropped).
    std::size_t droppable() const { return records() - kept_records_; }
    void clear() {
        end_ = begin_;
        long_records_ = 0;
        kept_records_ = 0;
    }
    void reserve_slots(std::size_t n);
    // Where the stream ends now; truncate(mark) forgets every record appended since.
    struct Mark {
        std::size_t slots;
        std::size_t long_records;
        std::size_t kept_records;
        std::uint64_t base_ticks;
    };
    Mark mark() const { return Mark{slots(), long_records_, kept_records_, base_ticks_}; }
    void truncate(const Mark& m) {
        end_ = begin_ + m.slots;
        long_records_ = m.long_records;
        kept_records_ = m.kept_records;
        base_ticks_ = m.base_ticks;
    }
    void swap(TimelineRecords& other) noexcept {
        std::swap(storage_, other.storage_);
        std::swap(begin_, other.begin_);
        std::swap(end_, other.end_);
        std::swap(limit_, other.limit_);
        std::swap(base_ticks_, other.base_ticks_);
        std::swap(long_records_, other.long_records_);
        std::swap(kept_records_, other.kept_records_);
    }

    // Calls fn(const TimelineRecord&) for each record, in order, decoded.
    template <typename Fn>
    void for_each(Fn&& fn) const {
        std::uint64_t base = 0;
        for (const Slot* s = begin_; s != end_;) {
            const TimelineRecord r = decode(s, base);
            if (r.kind == TimelineRecord::Kind::Thread) base = r.begin_ticks;
            fn(r);
        }
    }
    std::vector<TimelineRecord> decoded() const;

private:
    static constexpr unsigned kDepthShift = 48;  // x86-64 and AArch64 user pointers: 48 bits at most
    static constexpr std::uint64_t kOffsetBias = std::uint64_t{1} << 31;  // begin may precede the base
    static constexpr std::uint64_t kLongTag = 15;                         // the low bits a Site pointer leaves free

    // Decodes the record at `s` and moves `s` past it; `base` is the last Thread record's.
    static TimelineRecord decode(const Slot*& s, std::uint64_t base) {
        const Slot a = *s++;
        if ((a.first & kLongTag) == 0) {
            const std::uint64_t begin = base + (a.second & 0xFFFFFFFFu) - kOffsetBias;
            return TimelineRecord(TimelineRecord::Kind::Span, 0, static_cast<std::uint32_t>(a.first >> kDepthShift),
                                  reinterpret_cast<const Site*>(
                                      static_cast<std::uintptr_t>(a.first & ((std::uint64_t{1} << kDepthShift) - 1))),
                                  begin, begin + (a.second >> 32));
        }
        const Slot b = *s++;
        const auto kind = static_cast<TimelineRecord::Kind>((a.first & kLongTag) - 1);
        TimelineRecord r(kind, static_cast<std::uint8_t>(a.first >> 8), static_cast<std::uint32_t>(a.first >> 32),
                         nullptr, b.first, b.second);
        if (kind == TimelineRecord::Kind::Span || kind == TimelineRecord::Kind::Gauge) {
            r.site = reinterpret_cast<const Site*>(static_cast<std::uintptr_t>(a.second));
        } else {
            r.step = static_cast<std::int64_t>(a.second);
        }
        return r;
    }
    Slot* grow();

    std::unique_ptr<Slot[]> storage_;
    Slot* begin_ = nullptr;
    Slot* end_ = nullptr;
    Slot* limit_ = nullptr;
    std::uint64_t base_ticks_ = 0;  // of the last Thread record appended
    std::size_t long_records_ = 0;  // records taking two slots
    std::size_t kept_records_ = 0;  // Thread and step records (all long)
};

static_assert(sizeof(TimelineRecords::Slot) == 16, "the bytes the drainer writes per span");
static_assert(alignof(Site) >= 16, "a Site pointer's low four bits tell a compact span from a long record");

}  // namespace ringprof::detail
