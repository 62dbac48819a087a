// What the drainer keeps per recording thread: the ring it reads and the decoding state.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "drain/call_tree.hpp"
#include "drain/clock_calibration.hpp"
#include "record/thread_ring.hpp"
#include "ringprof/backend.hpp"

namespace ringprof::detail {

struct OpenScope {
    std::uint32_t node;
    std::uint64_t begin_ticks;
};

// A step (PROF_STEP) open on this thread; steps may nest (GLOBAL around TRAIN).
struct OpenStep {
    std::int64_t step;
    std::uint32_t mode;
    std::uint32_t depth;
    std::uint64_t begin_ticks;
};

// A scope of this thread that another thread ended (EventKind::EndElsewhere), waiting to be
// applied at its time in this thread's events.
struct ClosedElsewhere {
    std::uint64_t ticks;
    std::uint64_t close_tag;
};

struct ThreadTrack {
    // A ring announced in this session: its counts, and the notes of ends of its scopes made
    // elsewhere, start from zero. Notes written before the drainer first saw it (a pass later)
    // are this session's and still to be read, in the rings of the threads that ended them.
    explicit ThreadTrack(ThreadRing* r) : ThreadTrack(r, RingCounts{}, 0) {}
    // A ring parked by an earlier session: what it counted and the notes written for it by now
    // were that session's.
    struct CarriedOver {};
    ThreadTrack(ThreadRing* r, CarriedOver)
        : ThreadTrack(r, r->ring().counts(), r->ring().notes_written_elsewhere()) {}

    ThreadRing* ring;
    std::uint32_t tid;
    std::uint64_t serial;
    RingCounts counted_before;  // the ring's counts when this session took it over (or reset)
    CallTree tree;
    std::vector<OpenScope> stack;  // stack[0] is the root and is never popped
    // Open scopes of held-aside sites (CallNode::held_aside), oldest first: beside the nesting.
    std::deque<OpenScope> waiting;
    std::optional<std::int64_t> step;  // the step this thread is inside, if any
    std::uint32_t step_mode = 0;
    std::vector<OpenStep> steps;       // innermost last
    std::uint32_t blocked_passes = 0;  // passes this ring has waited for a context's capture
    bool read_to_exit = false;         // the thread has exited and its ring is fully read
    // Ends of this thread's scopes made by other threads, by time; applied once this thread's
    // events reach their time (the earliest is `next_elsewhere_ticks`, all ones: none).
    std::vector<ClosedElsewhere> closed_elsewhere;
    std::uint64_t next_elsewhere_ticks = ~std::uint64_t{0};
    // Notes of ends of this thread's scopes made elsewhere that the drainer has read, against the
    // ring's count of notes written (Ring::notes_written_elsewhere(), from `notes_before`): an
    // exited thread goes once they agree, so no end of its scopes is read after it went.
    std::uint64_t notes_before;
    std::uint64_t notes_read = 0;
    std::uint64_t last_ticks = 0;  // the time of the last event decoded

    RingCounts counts() const { return ring->ring().counts() - counted_before; }
    std::uint32_t depth() const { return static_cast<std::uint32_t>(stack.size() - 1); }
    bool every_note_read() const { return notes_read >= ring->ring().notes_written_elsewhere() - notes_before; }

private:
    ThreadTrack(ThreadRing* r, RingCounts already_counted, std::uint64_t notes_already_written)
        : ring(r),
          tid(r->tid()),
          serial(r->serial()),
          counted_before(already_counted),
          notes_before(notes_already_written) {
        stack.push_back(OpenScope{CallTree::kRoot, 0});
    }
};

// A thread's ring counts as the outputs show them (ticks as ns).
inline void set_ring_counts(ThreadInfo& info, const RingCounts& counts, const ClockCalibration& clock) {
    info.dropped = counts.dropped;
    info.waits = counts.waits;
    info.wait_ns = static_cast<std::uint64_t>(clock.to_ns(counts.wait_ticks));
    info.growths = counts.growths;
    info.growth_ns = static_cast<std::uint64_t>(clock.to_ns(counts.growth_ticks));
}
// Sums of several threads (the folded exited threads, a snapshot's totals).
inline void add_ring_counts(ThreadInfo& into, const ThreadInfo& from) {
    into.dropped += from.dropped;
    into.waits += from.waits;
    into.wait_ns += from.wait_ns;
    into.growths += from.growths;
    into.growth_ns += from.growth_ns;
}

}  // namespace ringprof::detail
