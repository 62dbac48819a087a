#include "engine/aggregator.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

#include "engine/internal_failures.hpp"
#include "ringprof/detail/event.hpp"
#include "tree/merge_nodes.hpp"

namespace ringprof::detail {

namespace {
double as_double(std::uint64_t bits) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

FailingWork g_failed_decode{"decoding a thread's events"};

// decode() writes a Thread record first; it is taken back when no record of the thread follows.
void take_back_if_alone(TimelineRecords* records, const TimelineRecords::Mark& before,
                        const TimelineRecords::Mark& after_thread) {
    if (records != nullptr && records->slots() == after_thread.slots) records->truncate(before);
}
// Field by field: a braced OpenScope pushed as a whole was copied with a 16-byte load of the
// narrower stores just made, which stalled on store forwarding (perf annotate of
// BM_DrainerAggregation: a quarter of decode's samples).
void open_scope(ThreadTrack& track, std::uint32_t node, std::uint64_t begin_ticks) {
    OpenScope& open = track.stack.emplace_back();
    open.node = node;
    open.begin_ticks = begin_ticks;
}
}  // namespace

std::uint64_t Aggregator::decode(ThreadTrack& track, std::uint64_t from, std::uint64_t to, TimelineRecords* records,
                                 WithheldSpans* withheld) {
    sites_.refresh();
    try {
        if (records == nullptr) return decode_events<Timeline::Off>(track, from, to, nullptr, nullptr);
        if (withheld == nullptr) return decode_events<Timeline::Full>(track, from, to, records, nullptr);
        return decode_events<Timeline::SpansWithheld>(track, from, to, records, withheld);
    } catch (const std::exception& e) {
        // Out of memory for a node or a span: where the decode stopped is unknown, so the rest of
        // the range is skipped and the thread starts over at the root, as a thread whose scopes
        // began before the session does (their Ends are ignored). Decoding the range again would
        // count its first part twice and nest what follows under scopes that are closed.
        note_internal_failure(g_failed_decode, &e);
        track.stack.resize(1);
        track.steps.clear();
        track.step = -1;
        track.step_mode = 0;
        return to;
    }
}

// An End that does not close the innermost open scope: a scope ended on another thread than the
// one that opened it, or events lost to a marker in an interrupting signal handler. If the End's
// scope is open further down, it is closed there with every scope opened inside it (their own
// Ends were lost, or come later and are then ignored): the stack is whole again at once, and
// later scopes get their right parents. An End whose scope is not open is ignored. Either way it
// is counted, and nothing is charged to a scope the End does not belong to.
void Aggregator::close_misnested(ThreadTrack& track, const Site* site, std::uint64_t end_ticks) {
    ++misnested_;
    if (!misnested_said_) {
        misnested_said_ = true;
        std::fprintf(stderr,
                     "ringprof: a scope ended out of order on thread %u: ended on another thread than the one that "
                     "opened it, or lost to a marker in a signal handler; counted in the metadata as "
                     "misnested_scopes\n",
                     track.tid);
    }
    for (std::size_t k = track.stack.size() - 1; k-- > 1;) {
        if (track.tree.nodes()[track.stack[k].node].site != site) continue;
        for (std::size_t open = track.stack.size(); open-- > k;) {
            const OpenScope& o = track.stack[open];
            // An adopted context's placeholder takes no time of its own (as at its AdoptEnd).
            if (track.tree.nodes()[o.node].site != nullptr) track.tree.charge(o.node, end_ticks - o.begin_ticks);
        }
        track.stack.resize(k);
        return;
    }
}

// What the timeline gets is decided once per call: the loop then has no branch for it.
template <Aggregator::Timeline kMode>
std::uint64_t Aggregator::decode_events(ThreadTrack& track, std::uint64_t from, std::uint64_t to,
                                        TimelineRecords* records, WithheldSpans* withheld) {
    constexpr bool kTimeline = kMode != Timeline::Off;
    constexpr bool kSpans = kMode == Timeline::Full;
    const Ring& ring = track.ring->ring();
    // The records that follow are this thread's; taken back below if none follows. Its spans
    // are counted from the pass's first tick, which keeps nearly all of them in one slot.
    const std::uint64_t base_ticks = from < to ? ring.at(from).tsc : 0;
    TimelineRecords::Mark records_before{}, after_thread{};
    // Spans go through a cursor held in registers; every other record is appended to `records`
    // after the cursor hands its end back, and the cursor is taken again after it.
    TimelineRecords::SpanCursor spans;
    if (kTimeline) {
        records_before = records->mark();
        records->append(TimelineRecord::thread(track.tid, track.step, base_ticks));
        after_thread = records->mark();
        spans = records->cursor();
    }
    std::uint64_t i = from;
    while (i < to) {
        const Event& e = ring.at(i);
        const EventKind kind = kind_of(e.tag);
        // Events this record occupies in the ring, its first included: set by the cases whose
        // records are longer. A second switch on the kind after the first (a function of it)
        // was reloaded and re-tested after every End once spans were written: the stores
        // might alias the event (objdump of decode_events<true>, 5 instructions per End).
        std::uint64_t length = 1;
        switch (kind) {
            case EventKind::Begin: {
                const Site* site = sites_.own(static_cast<const Site*>(pointer_of(e.tag)));
                const std::uint32_t node = track.tree.child(track.stack.back().node, site, 0);
                open_scope(track, node, e.tsc);
                break;
            }
            case EventKind::End: {
                // An End with nothing open began before this session: nothing to charge.
                if (track.stack.size() > 1) {
                    const Site* site = sites_.own(static_cast<const Site*>(pointer_of(e.tag)));
                    if (__builtin_expect(track.tree.nodes()[track.stack.back().node].site != site, 0)) {
                        close_misnested(track, site, e.tsc);
                        break;
                    }
                    const OpenScope open = track.stack.back();
                    track.stack.pop_back();
                    track.tree.charge(open.node, e.tsc - open.begin_ticks);
                    if (kSpans) {
                        const CallNode& n = track.tree.nodes()[open.node];
                        if (!spans.try_append(n.span_word, open.begin_ticks, e.tsc)) {
                            records->advance_to(spans);
                            records->append(TimelineRecord::span(n.site, open.begin_ticks, e.tsc, n.span_depth()));
                            spans = records->cursor();
                        }
                    } else if (kTimeline) {
                        withheld->count_span(track.tree.nodes()[open.node].span_depth(), e.tsc - open.begin_ticks);
                    }
                }
                break;
            }
            case EventKind::SigBegin: {
                const Site* site = sites_.own(static_cast<const Site*>(pointer_of(e.tag)), /*with_signature=*/true);
                const std::uint64_t signature = stats_.intern_signature(signature_site_of(site), ring, i);
                length = StatsState::record_length(signature_site_of(site));
                const std::uint32_t node = track.tree.child(track.stack.back().node, site, signature);
                open_scope(track, node, e.tsc);
                break;
            }
            case EventKind::StepBegin: {
                // The timeline labels spans of every thread by time (see timeline_writer.hpp):
                // it learns of the step here, before any span that began in it can be released.
                length = 2;
                const OpenStep open{static_cast<std::int64_t>(ring.at(i + 1).tsc),
                                    static_cast<std::uint32_t>(value_of(e.tag) & 3u), track.depth(), e.tsc};
                track.steps.push_back(open);
                track.step = open.step;
                track.step_mode = open.mode;
                if (kTimeline) {
                    records->advance_to(spans);
                    records->append(TimelineRecord::step_begin(open.mode, open.step, open.begin_ticks, open.depth));
                    records->append(TimelineRecord::thread(track.tid, track.step, base_ticks));
                    spans = records->cursor();
                }
                break;
            }
            case EventKind::StepEnd: {
                // A StepEnd with nothing open began before this session.
                if (track.steps.empty()) break;
                const OpenStep open = track.steps.back();
                track.steps.pop_back();
                track.step = track.steps.empty() ? -1 : track.steps.back().step;
                track.step_mode = track.steps.empty() ? 0 : track.steps.back().mode;
                if (kTimeline) {
                    records->advance_to(spans);
                    records->append(
                        TimelineRecord::step_end(open.mode, open.step, open.begin_ticks, e.tsc, open.depth));
                    records->append(TimelineRecord::thread(track.tid, track.step, base_ticks));
                    spans = records->cursor();
                }
                break;
            }
            case EventKind::Gauge: {
                length = 2;
                const Site* site = sites_.own(static_cast<const Site*>(pointer_of(e.tag)));
                extras_.gauge(site->name).set(as_double(ring.at(i + 1).tsc), clock_.to_monotonic_ns(e.tsc));
                if (kSpans) {
                    records->advance_to(spans);
                    records->append(TimelineRecord::gauge(site, e.tsc, as_double(ring.at(i + 1).tsc)));
                    spans = records->cursor();
                } else if (kTimeline) {
                    ++withheld->dropped;
                }
                break;
            }
            case EventKind::ContextCapture: {
                ContextSlot& slot = contexts_[value_of(e.tag) % kContextWindow];
                slot.id = value_of(e.tag);
                slot.path_id = path_of_stack(track);
                break;
            }
            case EventKind::AdoptBegin: {
                const std::uint64_t id = value_of(e.tag);
                const ContextSlot& slot = contexts_[id % kContextWindow];
                std::uint64_t path_id = 0;
                if (slot.id == id) {
                    path_id = slot.path_id;
                } else if (track.blocked_passes < 2) {
                    if (kTimeline) records->advance_to(spans);
                    take_back_if_alone(records, records_before, after_thread);
                    return i;  // its capture is in a ring not read yet
                }
                const std::uint32_t node = track.tree.child(track.stack.back().node, nullptr, path_id);
                open_scope(track, node, e.tsc);
                break;
            }
            case EventKind::AdoptEnd:
                if (track.stack.size() > 1) {
                    if (track.tree.nodes()[track.stack.back().node].site == nullptr) {
                        track.stack.pop_back();
                    } else {
                        close_misnested(track, nullptr, e.tsc);
                    }
                }
                break;
            default:
                break;
        }
        i += length;
    }
    if (kTimeline) records->advance_to(spans);
    take_back_if_alone(records, records_before, after_thread);
    return i;
}

std::uint64_t Aggregator::path_of_stack(const ThreadTrack& track) {
    std::vector<std::string> names;
    for (std::size_t k = 1; k < track.stack.size(); ++k) {
        const CallNode& n = track.tree.nodes()[track.stack[k].node];
        if (n.site == nullptr) {
            names = paths_[n.key];  // an adopted context: its path replaces what lies below
        } else {
            names.emplace_back(n.site->name);
        }
    }
    return intern_path(std::move(names));
}

std::uint64_t Aggregator::intern_path(std::vector<std::string> names) {
    auto it = path_ids_.find(names);
    if (it != path_ids_.end()) return it->second;
    const std::uint64_t id = paths_.size();
    paths_.push_back(names);
    path_ids_.emplace(std::move(names), id);
    return id;
}

AggNode& Aggregator::node_at_path(AggNode& root, std::uint64_t path_id) const {
    AggNode* node = &root;
    for (const std::string& name : paths_[path_id]) node = &node->child(name);
    return *node;
}

void Aggregator::fold_node(const CallTree& tree, const std::vector<std::uint64_t>& subtree_calls, std::uint32_t index,
                           AggNode& into, AggNode& root, std::uint64_t serial) const {
    const auto& nodes = tree.nodes();
    for (std::uint32_t c = nodes[index].first_child; c != 0; c = nodes[c].next_sibling) {
        if (subtree_calls[c] == 0) continue;  // nothing completed here since the last reset
        const CallNode& n = nodes[c];
        if (n.site == nullptr) {
            // An adopted context: this thread's scopes nest under the spawning scope's path,
            // which itself receives no time (and no thread count) from this thread.
            fold_node(tree, subtree_calls, c, node_at_path(root, n.key), root, serial);
            continue;
        }
        AggNode& child = into.child(n.site->name);
        std::uint64_t ticks = n.total_ticks;
        if (subtract_marker_cost_) {
            const std::uint64_t instrumentation = (subtree_calls[c] - n.count) * marker_cost_ticks_;
            ticks = ticks > instrumentation ? ticks - instrumentation : 0;
        }
        child.charge(clock_.to_ns(ticks) * 1e-9, n.count, serial);
        fold_node(tree, subtree_calls, c, child, root, serial);
    }
}

void Aggregator::fold(const ThreadTrack& track, AggNode& root) const {
    // Children always come after their parent in the vector, so one backward sweep sums
    // every subtree's completed calls.
    const auto& nodes = track.tree.nodes();
    std::vector<std::uint64_t> subtree_calls(nodes.size());
    for (std::size_t i = nodes.size(); i-- > 1;) {
        subtree_calls[i] += nodes[i].count;
        subtree_calls[nodes[i].parent] += subtree_calls[i];
    }
    fold_node(track.tree, subtree_calls, CallTree::kRoot, root, root, track.serial);
}

void Aggregator::reset(const std::vector<ThreadTrack*>& live) {
    retired_ = AggNode{};
    grafted_ = AggNode{};
    extras_.gauges.clear();
    stats_.reset();
    for (ThreadTrack* t : live) t->tree.reset_counts();
}

void Aggregator::retire(ThreadTrack& track) {
    fold(track, retired_);
    stats_.retire(track.tree);
}

void Aggregator::add_graft(std::uint64_t context_id, const std::string& graft_path, const TimerTree& tree) {
    const ContextSlot& slot = contexts_[context_id % kContextWindow];
    const std::uint64_t path_id = (context_id != 0 && slot.id == context_id) ? slot.path_id : 0;
    merge_nodes(graft_point(node_at_path(grafted_, path_id), graft_path), tree.root, /*parallel_merge=*/true);
    for (const auto& [name, g] : tree.gauges) extras_.gauge(name).merge(g);
}

void Aggregator::add_metadata(const std::string& key, const std::string& value) { extras_.set_metadata(key, value); }

TimerNode Aggregator::thread_tree(const ThreadTrack& track) const {
    AggNode own;
    own.name = "root";
    fold(track, own);
    return own.to_timer_node();
}

void Aggregator::fill(Snapshot& snapshot, const std::vector<ThreadTrack*>& live) const {
    AggNode root = retired_;
    root.name = "root";
    merge_nodes(root, grafted_, /*parallel_merge=*/false);
    for (const ThreadTrack* track : live) {
        fold(*track, root);
        ThreadInfo info;
        info.tid = track->tid;
        info.name = track->ring->thread_name();
        set_ring_counts(info, track->counts(), clock_);
        info.tree = thread_tree(*track);
        snapshot.threads.push_back(std::move(info));
    }
    std::uint64_t folded = 0;
    snapshot.tree.root = root.to_timer_node(&folded);
    snapshot.tree.root.count = 1;
    snapshot.tree.root.is_parallel = false;
    snapshot.tree.gauges = extras_.gauges;
    snapshot.tree.metadata = extras_.metadata;
    if (folded != 0) snapshot.tree.set_metadata("folded_deep_nodes", std::to_string(folded));
    stats_.fill(snapshot, live, clock_);
}

}  // namespace ringprof::detail
