#include "drain/timeline_records.hpp"

#include <algorithm>

namespace ringprof::detail {

namespace {
// A pass of 65,536 events is ~32,000 spans; starting there saves the first passes' regrowth.
constexpr std::size_t kFirstSlots = 4096;
}  // namespace

TimelineRecords::TimelineRecords(std::initializer_list<TimelineRecord> records) {
    for (const TimelineRecord& r : records) append(r);
}

void TimelineRecords::append(const TimelineRecord& r) {
    if (r.kind == TimelineRecord::Kind::Thread) base_ticks_ = r.begin_ticks;
    if (r.kind == TimelineRecord::Kind::Span) {
        const std::uint64_t word = span_word(r.site, r.depth);
        const std::uint64_t offset = r.begin_ticks - base_ticks_ + kOffsetBias;
        const std::uint64_t width = r.end_ticks - r.begin_ticks;
        if ((offset | width) >> 32 == 0 && word != kNoSpanWord) {
            Slot* s = end_ != limit_ ? end_ : grow();
            s->first = word;
            s->second = offset | width << 32;
            end_ = s + 1;
            return;
        }
    }
    if (limit_ - end_ < 2) grow();
    const bool has_site = r.kind == TimelineRecord::Kind::Span || r.kind == TimelineRecord::Kind::Gauge;
    end_[0].first =
        (static_cast<std::uint64_t>(r.kind) + 1) | std::uint64_t{r.mode} << 8 | std::uint64_t{r.depth} << 32;
    end_[0].second = has_site ? static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(r.site))
                              : static_cast<std::uint64_t>(r.step);
    end_[1].first = r.begin_ticks;
    end_[1].second = r.end_ticks;
    end_ += 2;
    ++long_records_;
    kept_records_ += !has_site;
}

void TimelineRecords::append_all(const TimelineRecords& other) {
    reserve_slots(slots() + other.slots());
    end_ = std::copy(other.begin_, other.end_, end_);
    long_records_ += other.long_records_;
    kept_records_ += other.kept_records_;
    base_ticks_ = other.base_ticks_;
}

void TimelineRecords::reserve_slots(std::size_t n) {
    if (n <= capacity_slots()) return;
    std::unique_ptr<Slot[]> bigger(new Slot[n]);  // not value-initialised: written before read
    const std::size_t used = slots();
    std::copy(begin_, end_, bigger.get());
    storage_ = std::move(bigger);
    begin_ = storage_.get();
    end_ = begin_ + used;
    limit_ = begin_ + n;
}

TimelineRecords::Slot* TimelineRecords::grow() {
    reserve_slots(std::max(kFirstSlots, 2 * capacity_slots()));
    return end_;
}

std::vector<TimelineRecord> TimelineRecords::decoded() const {
    std::vector<TimelineRecord> out;
    for_each([&](const TimelineRecord& r) { out.push_back(r); });
    return out;
}

}  // namespace ringprof::detail
