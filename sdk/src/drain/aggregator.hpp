// Turns events into aggregates. Owned and used by the drainer thread only.
//
// Each thread's events build that thread's CallTree; a snapshot folds all of them (plus the
// trees of threads that have exited and of worker processes merged in) into one process tree by
// name, marking nodes fed by two or more threads parallel.
//
// A pass may decode several tracks at once, one per decoder (decode_pool.hpp): each decoder has
// its own site cache, every track is decoded by one decoder at a time, and what tracks share (ends
// made elsewhere, captured contexts, gauges, signatures, the misnested count) is locked while
// set_parallel(true) says decoders run at once; a lone decoder takes no lock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "drain/clock_calibration.hpp"
#include "drain/site_table.hpp"
#include "drain/stats_state.hpp"
#include "drain/thread_track.hpp"
#include "drain/timeline_records.hpp"
#include "ringprof/backend.hpp"
#include "ringprof/timer_tree.hpp"
#include "tree/agg_node.hpp"

namespace ringprof::detail {

class Aggregator {
public:
    explicit Aggregator(const ClockCalibration& clock) : clock_(clock) {}

    // Decodes events [from, to) of the track's ring. Returns where it stopped: `to` (past it when
    // `to` falls inside a record of several events, all published), or earlier when an adopted
    // context's capture has not been read yet. The capture was published before the adopt, so
    // the pass after the one that first blocked reads it; a track still blocked after two passes
    // met a capture that was dropped (full ring) and adopts at the root.
    // With `records` non-null, what a timeline shows is appended there (timeline_records.hpp);
    // with `withheld` non-null too, the spans and gauge samples are only counted there.
    // `decoder`: which of set_decoders() decodes it (each has its own site cache).
    std::uint64_t decode(ThreadTrack& track, std::uint64_t from, std::uint64_t to, TimelineRecords* records,
                         WithheldSpans* withheld = nullptr, std::size_t decoder = 0);

    // How many decoders may decode at once; called between passes.
    void set_decoders(std::size_t n) {
        if (n > sites_.size()) sites_.resize(n);
    }
    // Whether decoders run at once now (between passes only): what tracks share is locked.
    void set_parallel(bool parallel) { parallel_ = parallel; }

    // Applies the ends that other threads made of the tracks' scopes, once each track's events
    // are past them: called after each pass, as a track read before the ender is not decoded
    // again until it records more.
    void settle_closed_elsewhere(const std::vector<ThreadTrack*>& tracks);

    // The thread has exited and its ring is fully read: keep its totals, forget the rest.
    void retire(ThreadTrack& track);

    // A worker process's tree, grafted under `graft_path` below the scope that the capture
    // `context_id` pointed at (0: the root).
    void add_graft(std::uint64_t context_id, const std::string& graft_path, const TimerTree& tree);

    void add_metadata(const std::string& key, const std::string& value);

    // Subtracts `ticks` per completed descendant scope from each node's total when folding.
    void set_marker_cost(std::uint64_t ticks, bool subtract) {
        marker_cost_ticks_ = ticks;
        subtract_marker_cost_ = subtract;
    }

    // Forgets totals, gauges and grafts (a worker's take); metadata and open scopes stay.
    void reset(const std::vector<ThreadTrack*>& live);

    // The process tree and per-thread trees, times in seconds.
    void fill(Snapshot& snapshot, const std::vector<ThreadTrack*>& live) const;

    // One live thread's flat statistics, times in seconds.
    std::vector<FunctionStats> thread_stats(const ThreadTrack& track) const { return stats_.of_thread(track, clock_); }

    // One thread's own scopes, times in seconds (kept for exited threads' per-thread views).
    TimerNode thread_tree(const ThreadTrack& track) const;

    // Scopes that did not nest, since the start: Ends that did not close the innermost open
    // scope of their thread, and scopes closed out of nesting (Detach, EndElsewhere), which the
    // timers and statistics show where they were opened and the timelines leave out.
    std::uint64_t misnested() const { return misnested_.load(std::memory_order_relaxed); }

private:
    // Held around what decoders share while they run at once; empty otherwise.
    std::unique_lock<std::mutex> lock_shared() {
        return parallel_ ? std::unique_lock<std::mutex>(shared_) : std::unique_lock<std::mutex>();
    }
    enum class Timeline : std::uint8_t { Off, Full, SpansWithheld };
    template <Timeline kTimeline>
    std::uint64_t decode_events(ThreadTrack& track, std::uint64_t from, std::uint64_t to, TimelineRecords* records,
                                WithheldSpans* withheld, SiteCache& sites);
    void close_misnested(ThreadTrack& track, const Site* site, std::uint64_t end_ticks);
    void say_misnested(const ThreadTrack& track);
    void detach(ThreadTrack& track, std::size_t frame, std::uint64_t end_ticks);
    void detach_innermost(ThreadTrack& track, const Site* site, std::uint64_t end_ticks);
    void hold_aside(ThreadTrack& track, const Site* site);
    void open_aside(ThreadTrack& track, std::uint32_t node, std::uint64_t begin_ticks);
    bool close_aside(ThreadTrack& track, const void* site, std::uint64_t end_ticks, bool oldest);
    void hold_closed_elsewhere(std::uint64_t opener_ring, std::uint64_t close_tag, std::uint64_t ticks);
    void take_closed_elsewhere(ThreadTrack& track);
    void apply_closed_elsewhere(ThreadTrack& track, std::uint64_t up_to);
    std::uint64_t path_of_stack(const ThreadTrack& track);
    std::uint64_t intern_path(std::vector<std::string> names);
    AggNode& node_at_path(AggNode& root, std::uint64_t path_id, std::size_t* level = nullptr) const;
    void fold(const ThreadTrack& track, AggNode& root) const;
    void fold_from(const CallTree& tree, const std::vector<std::uint64_t>& subtree_calls, std::uint32_t index,
                   AggNode& into, std::size_t level, std::uint64_t serial, std::vector<std::uint32_t>& adopted) const;

    const ClockCalibration& clock_;
    std::uint64_t marker_cost_ticks_ = 0;
    bool subtract_marker_cost_ = false;

    AggNode retired_;   // exited threads, folded in as they exit
    TimerTree extras_;  // gauges and metadata
    AggNode grafted_;   // worker trees, merged in where they were grafted
    StatsState stats_;  // flat statistics and interned signatures
    // Every site below the decoder is the drainer's own copy (site_table.hpp): what it keeps never
    // points into a module that may be unloaded.
    std::vector<SiteCache> sites_ = std::vector<SiteCache>(1);  // one per decoder
    std::atomic<std::uint64_t> misnested_{0};
    std::atomic<bool> misnested_said_{false};
    bool parallel_ = false;
    std::mutex shared_;

    // Ends made by other threads (EventKind::EndElsewhere), by the opener's ring address, until
    // the opener's next decode or the end of the pass takes them; bounded, as an opener may never
    // be decoded again (it exited), at more than a pass of a lagging drainer reads (16 MiB).
    static constexpr std::size_t kMaxHeldElsewhere = 1 << 20;
    // Held-aside scopes open on one thread at once; beyond, the oldest is dropped (counted):
    // its end was lost.
    static constexpr std::size_t kMaxWaiting = 1 << 20;
    struct HeldNotes {
        std::vector<ClosedElsewhere> notes;
        std::uint64_t dropped = 0;  // past the bound: read, not kept
    };
    std::unordered_map<std::uint64_t, HeldNotes> elsewhere_;
    std::size_t held_elsewhere_ = 0;
    // elsewhere_.size(), read without the lock: most decodes find nothing held.
    std::atomic<std::size_t> openers_held_{0};

    // Captured contexts, by id, in a bounded window: a context older than the window adopts
    // at the root instead of growing memory without limit in long-running thread pools.
    static constexpr std::size_t kContextWindow = 1 << 14;
    struct ContextSlot {
        std::uint64_t id = 0;
        std::uint64_t path_id = 0;
    };
    // Allocated by the first capture: most sessions capture none, and 256 KiB zeroed when the
    // session starts cost the thread starting it (often a marker's first call) its page faults.
    std::vector<ContextSlot> contexts_;
    // The path of the captured context `id`; false if it is not in the window.
    bool captured_path(std::uint64_t id, std::uint64_t& path_id) const {
        if (contexts_.empty()) return false;
        const ContextSlot& slot = contexts_[id % kContextWindow];
        if (slot.id != id) return false;
        path_id = slot.path_id;
        return true;
    }
    std::map<std::vector<std::string>, std::uint64_t> path_ids_;
    std::vector<std::vector<std::string>> paths_{std::vector<std::string>{}};  // id 0: the root
};

}  // namespace ringprof::detail
