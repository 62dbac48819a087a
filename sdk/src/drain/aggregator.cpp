#include "drain/aggregator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

#include "drain/internal_failures.hpp"
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
                                 WithheldSpans* withheld, std::size_t decoder) {
    SiteCache& sites = sites_[decoder];
    sites.refresh();
    try {
        if (openers_held_.load(std::memory_order_relaxed) != 0) take_closed_elsewhere(track);
        std::uint64_t stop = 0;
        if (records == nullptr) {
            stop = decode_events<Timeline::Off>(track, from, to, nullptr, nullptr, sites);
        } else if (withheld == nullptr) {
            stop = decode_events<Timeline::Full>(track, from, to, records, nullptr, sites);
        } else {
            stop = decode_events<Timeline::SpansWithheld>(track, from, to, records, withheld, sites);
        }
        // Ends made elsewhere before this thread's last event: nothing of this thread before
        // their time is still to come.
        if (track.next_elsewhere_ticks <= track.last_ticks) apply_closed_elsewhere(track, track.last_ticks);
        return stop;
    } catch (const std::exception& e) {
        // Out of memory for a node or a span: where the decode stopped is unknown, so the rest of
        // the range is skipped and the thread starts over at the root, as a thread whose scopes
        // began before the session does (their Ends are ignored). Decoding the range again would
        // count its first part twice and nest what follows under scopes that are closed.
        note_internal_failure(g_failed_decode, &e);
        track.stack.resize(1);
        track.waiting.clear();
        track.steps.clear();
        track.step.reset();
        track.step_mode = 0;
        track.closed_elsewhere.clear();
        track.next_elsewhere_ticks = ~std::uint64_t{0};
        return to;
    }
}

void Aggregator::say_misnested(const ThreadTrack& track) {
    misnested_.fetch_add(1, std::memory_order_relaxed);
    if (!misnested_said_.exchange(true, std::memory_order_relaxed)) {
        std::fprintf(stderr,
                     "ringprof: a scope on thread %u did not nest: ended on another thread than the one that opened "
                     "it, closed while scopes opened after it were open, or lost to a marker in a signal handler; "
                     "counted in the metadata as misnested_scopes\n",
                     track.tid);
    }
}

// An End that does not close the innermost open scope: events lost to a marker in an
// interrupting signal handler, or a scope ended out of order. If the End's scope is open further
// down, it is closed there with every scope opened inside it (their own Ends were lost, or come
// later and are then ignored): the stack is whole again at once, and later scopes get their
// right parents. An End whose scope is not open is ignored. Either way it is counted, and nothing
// is charged to a scope the End does not belong to.
void Aggregator::close_misnested(ThreadTrack& track, const Site* site, std::uint64_t end_ticks) {
    say_misnested(track);
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

// Takes the scope at stack[frame] out of the nesting, closed at `end_ticks`: it is charged where
// it was opened, and the scopes opened after it, still open (another asyncio task's, or this
// thread's own while a coroutine that opened it waits elsewhere), move one level up, to the
// node they would have had without it. A timeline cannot show a scope that ends inside a later
// one, so its span is left out; it is counted.
void Aggregator::detach(ThreadTrack& track, std::size_t frame, std::uint64_t end_ticks) {
    say_misnested(track);
    const OpenScope closed = track.stack[frame];
    if (track.tree.nodes()[closed.node].site != nullptr) {
        track.tree.charge(closed.node, end_ticks > closed.begin_ticks ? end_ticks - closed.begin_ticks : 0);
    }
    std::uint32_t parent = track.stack[frame - 1].node;
    for (std::size_t k = frame + 1; k < track.stack.size(); ++k) {
        const CallNode& above = track.tree.nodes()[track.stack[k].node];
        const Site* site = above.site;
        const std::uint64_t key = above.key;
        parent = track.tree.child(parent, site, key);  // may add a node: `above` is not used after
        track.stack[k - 1] = OpenScope{parent, track.stack[k].begin_ticks};
    }
    track.stack.pop_back();
}

// A Detach: the innermost open scope of its site (the one a stack of `with` blocks would
// close). One not open here (refused when it began, or begun before the session) is ignored.
void Aggregator::detach_innermost(ThreadTrack& track, const Site* site, std::uint64_t end_ticks) {
    for (std::size_t k = track.stack.size(); k-- > 1;) {
        if (track.tree.nodes()[track.stack[k].node].site == site) {
            detach(track, k, end_ticks);
            hold_aside(track, site);
            return;
        }
    }
    close_aside(track, site, end_ticks, false);
}

// From now on, `site`'s scopes are held beside this thread's nesting (CallNode::held_aside), and
// what was charged below its open or earlier scopes moves to where it would have been without
// them: a scope of a site that ends out of nesting (a coroutine's, an asyncio task's) is found to
// wait while its thread runs other work, and that work did not run inside it. Scopes that do run
// inside such a scope are shown beside it, at its level. Once per site and thread; one pass over
// the thread's call tree (parents come before children in it).
void Aggregator::hold_aside(ThreadTrack& track, const Site* site) {
    CallTree& tree = track.tree;
    for (const CallNode& n : tree.nodes()) {
        if (n.site == site && n.held_aside) return;  // already held aside
    }
    tree.hold_aside(site);
    const std::size_t count = tree.nodes().size();
    // home: where a node's calls go; under: where its children go (a held node's parent's home).
    std::vector<std::uint32_t> home(count), under(count);
    for (std::uint32_t i = 1; i < count; ++i) {
        const CallNode& n = tree.nodes()[i];
        const std::uint32_t parent = n.parent;
        const Site* node_site = n.site;
        const std::uint64_t key = n.key;
        const bool held = n.held_aside;
        // child() may add a node, and move `n`: it is not used after.
        home[i] = under[parent] == parent ? i : tree.child(under[parent], node_site, key);
        under[i] = held ? under[parent] : home[i];
    }
    for (std::uint32_t i = 1; i < count; ++i) {
        if (home[i] != i) tree.move_counts(i, home[i]);
    }
    std::vector<OpenScope> nesting{track.stack.front()};
    for (std::size_t k = 1; k < track.stack.size(); ++k) {
        const OpenScope& open = track.stack[k];
        const OpenScope moved{home[open.node], open.begin_ticks};
        if (tree.nodes()[open.node].held_aside) {
            track.waiting.push_back(moved);
        } else {
            nesting.push_back(moved);
        }
    }
    track.stack = std::move(nesting);
    for (OpenScope& w : track.waiting) {
        if (w.node < count) w.node = home[w.node];
    }
}

void Aggregator::open_aside(ThreadTrack& track, std::uint32_t node, std::uint64_t begin_ticks) {
    if (track.waiting.size() >= kMaxWaiting) {
        track.waiting.pop_front();
        ++misnested_;
    }
    track.waiting.push_back(OpenScope{node, begin_ticks});
}

// Closes a held-aside scope of `site`: the latest opened (an End on its own thread), or the
// oldest begun by `end_ticks` (an end made elsewhere). Charged, left out of the timelines,
// counted. False if none is open.
bool Aggregator::close_aside(ThreadTrack& track, const void* site, std::uint64_t end_ticks, bool oldest) {
    std::deque<OpenScope>& waiting = track.waiting;
    const auto& nodes = track.tree.nodes();
    std::size_t found = waiting.size();
    if (oldest) {
        for (std::size_t k = 0; k < waiting.size(); ++k) {
            if (nodes[waiting[k].node].site == site && waiting[k].begin_ticks <= end_ticks) {
                found = k;
                break;
            }
        }
    } else {
        for (std::size_t k = waiting.size(); k-- > 0;) {
            if (nodes[waiting[k].node].site == site) {
                found = k;
                break;
            }
        }
    }
    if (found == waiting.size()) return false;
    const OpenScope open = waiting[found];
    waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(found));
    track.tree.charge(open.node, end_ticks > open.begin_ticks ? end_ticks - open.begin_ticks : 0);
    say_misnested(track);
    return true;
}

void Aggregator::hold_closed_elsewhere(std::uint64_t opener_ring, std::uint64_t close_tag, std::uint64_t ticks) {
    const auto lock = lock_shared();
    HeldNotes& held = elsewhere_[opener_ring];
    openers_held_.store(elsewhere_.size(), std::memory_order_relaxed);
    if (held_elsewhere_ >= kMaxHeldElsewhere) {
        ++held.dropped;  // read all the same (ThreadTrack::notes_read)
        ++misnested_;    // its opener stays open until a scope around it ends (close_misnested)
        return;
    }
    held.notes.push_back(ClosedElsewhere{ticks, close_tag});
    ++held_elsewhere_;
}

void Aggregator::settle_closed_elsewhere(const std::vector<ThreadTrack*>& tracks) {
    if (openers_held_.load(std::memory_order_relaxed) == 0) return;
    for (ThreadTrack* track : tracks) {
        take_closed_elsewhere(*track);
        // An exited thread's ring is read to its end: nothing of it comes later than any end.
        const std::uint64_t up_to = track->read_to_exit ? ~std::uint64_t{0} : track->last_ticks;
        if (track->next_elsewhere_ticks <= up_to) apply_closed_elsewhere(*track, up_to);
    }
}

void Aggregator::take_closed_elsewhere(ThreadTrack& track) {
    std::vector<ClosedElsewhere>& mine = track.closed_elsewhere;
    {
        const auto lock = lock_shared();
        const auto it =
            elsewhere_.find(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&track.ring->ring())));
        if (it == elsewhere_.end()) return;
        const HeldNotes& held = it->second;
        held_elsewhere_ -= held.notes.size();
        track.notes_read += held.notes.size() + held.dropped;
        mine.insert(mine.end(), held.notes.begin(), held.notes.end());
        elsewhere_.erase(it);
        openers_held_.store(elsewhere_.size(), std::memory_order_relaxed);
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const ClosedElsewhere& a, const ClosedElsewhere& b) { return a.ticks < b.ticks; });
    track.next_elsewhere_ticks = mine.front().ticks;
}

// Closes, in time order, the scopes other threads ended up to `up_to`. Each is the outermost
// open scope of its site begun before its end: a coroutine that waits elsewhere leaves its
// scope open below everything this thread does meanwhile, its own next instances included, and
// such scopes end in the order they began. A scope no longer open (its parent's end closed it
// first, counted there) is passed over.
void Aggregator::apply_closed_elsewhere(ThreadTrack& track, std::uint64_t up_to) {
    std::vector<ClosedElsewhere>& notes = track.closed_elsewhere;
    std::size_t done = 0;
    for (; done < notes.size() && notes[done].ticks <= up_to; ++done) {
        const ClosedElsewhere& note = notes[done];
        const EventKind kind = kind_of(note.close_tag);
        if (kind != EventKind::End && kind != EventKind::AdoptEnd) continue;  // a step: its own stack
        const void* site = kind == EventKind::End ? pointer_of(note.close_tag) : nullptr;
        if (site != nullptr && close_aside(track, site, note.ticks, true)) continue;
        for (std::size_t frame = 1; frame < track.stack.size(); ++frame) {
            const OpenScope& open = track.stack[frame];
            if (track.tree.nodes()[open.node].site == site && open.begin_ticks <= note.ticks) {
                detach(track, frame, note.ticks);
                if (site != nullptr) hold_aside(track, static_cast<const Site*>(site));
                break;
            }
        }
    }
    notes.erase(notes.begin(), notes.begin() + static_cast<std::ptrdiff_t>(done));
    track.next_elsewhere_ticks = notes.empty() ? ~std::uint64_t{0} : notes.front().ticks;
}

// What the timeline gets is decided once per call: the loop then has no branch for it.
template <Aggregator::Timeline kMode>
std::uint64_t Aggregator::decode_events(ThreadTrack& track, std::uint64_t from, std::uint64_t to,
                                        TimelineRecords* records, WithheldSpans* withheld, SiteCache& sites) {
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
    std::uint64_t last_ticks = track.last_ticks;
    // In a register. This test, the held-aside test at Begins and the last event's time cost
    // decode 2.3 instructions per event (callgrind of BM_DrainerAggregation), less than testing
    // only at Begins and misnested Ends through a lambda (docs/perf/drain.md).
    std::uint64_t next_elsewhere = track.next_elsewhere_ticks;
    while (i < to) {
        const Event& e = ring.at(i);
        const EventKind kind = kind_of(e.tag);
        last_ticks = e.tsc;
        // Another thread ended one of this thread's scopes before this event: closed first.
        if (__builtin_expect(e.tsc >= next_elsewhere, 0)) {
            apply_closed_elsewhere(track, e.tsc);
            next_elsewhere = track.next_elsewhere_ticks;
        }
        // Events this record occupies in the ring, its first included: set by the cases whose
        // records are longer. A second switch on the kind after the first (a function of it)
        // was reloaded and re-tested after every End once spans were written: the stores
        // might alias the event (objdump of decode_events<true>, 5 instructions per End).
        std::uint64_t length = 1;
        switch (kind) {
            case EventKind::Begin: {
                const Site* site = sites.own(static_cast<const Site*>(pointer_of(e.tag)));
                const std::uint32_t node = track.tree.child(track.stack.back().node, site, 0);
                if (__builtin_expect(track.tree.nodes()[node].held_aside, 0)) {
                    open_aside(track, node, e.tsc);
                    break;
                }
                open_scope(track, node, e.tsc);
                break;
            }
            case EventKind::End: {
                // An End with nothing open began before this session: nothing to charge.
                const Site* site = sites.own(static_cast<const Site*>(pointer_of(e.tag)));
                if (__builtin_expect(track.stack.size() == 1, 0)) {
                    close_aside(track, site, e.tsc, false);
                } else {
                    if (__builtin_expect(track.tree.nodes()[track.stack.back().node].site != site, 0)) {
                        if (!close_aside(track, site, e.tsc, false)) close_misnested(track, site, e.tsc);
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
            case EventKind::Detach:
                detach_innermost(track, sites.own(static_cast<const Site*>(pointer_of(e.tag))), e.tsc);
                break;
            case EventKind::EndElsewhere: {
                length = 2;
                // The scope's End names its site: kept as the drainer's own copy, as every site is.
                std::uint64_t close_tag = ring.at(i + 1).tsc;
                if (kind_of(close_tag) == EventKind::End)
                    close_tag = make_tag(sites.own(static_cast<const Site*>(pointer_of(close_tag))), EventKind::End);
                hold_closed_elsewhere(e.tag & ~kKindMask, close_tag, e.tsc);
                break;
            }
            case EventKind::SigBegin: {
                const Site* site = sites.own(static_cast<const Site*>(pointer_of(e.tag)), /*with_signature=*/true);
                std::uint64_t signature = 0;
                {
                    const auto lock = lock_shared();
                    signature = stats_.intern_signature(signature_site_of(site), ring, i);
                }
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
                track.step = track.steps.empty() ? std::nullopt : std::optional(track.steps.back().step);
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
                const Site* site = sites.own(static_cast<const Site*>(pointer_of(e.tag)));
                {
                    const auto lock = lock_shared();
                    extras_.gauge(site->name).set(as_double(ring.at(i + 1).tsc), clock_.to_monotonic_ns(e.tsc));
                }
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
                const auto lock = lock_shared();
                if (contexts_.empty()) contexts_.resize(kContextWindow);
                ContextSlot& slot = contexts_[value_of(e.tag) % kContextWindow];
                slot.id = value_of(e.tag);
                slot.path_id = path_of_stack(track);
                break;
            }
            case EventKind::AdoptBegin: {
                const std::uint64_t id = value_of(e.tag);
                std::uint64_t path_id = 0;
                bool captured = false;
                {
                    const auto lock = lock_shared();
                    captured = captured_path(id, path_id);
                }
                if (!captured && track.blocked_passes < 2) {
                    if (kTimeline) records->advance_to(spans);
                    take_back_if_alone(records, records_before, after_thread);
                    track.last_ticks = last_ticks;
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
    track.last_ticks = last_ticks;
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

// Paths longer than the levels a tree keeps end at the deepest kept level (kMaxTreeDepth).
AggNode& Aggregator::node_at_path(AggNode& root, std::uint64_t path_id, std::size_t* level) const {
    AggNode* node = &root;
    std::size_t depth = 0;
    for (const std::string& name : paths_[path_id]) {
        if (depth == kMaxTreeDepth) break;
        node = &node->child(name);
        ++depth;
    }
    if (level != nullptr) *level = depth;
    return *node;
}

// Folds the subtree below call node `index` into `into` (at `level` below the root), without
// recursion: a program's recursion makes call trees as deep as it likes, and the drainer's
// stack is a thread's. Below kMaxTreeDepth, nodes are folded into their ancestor there (its
// total and count already hold theirs), counted in its folded_below. Adopted contexts are left
// in `adopted`, to be folded under their own paths afterwards: folding one may add children
// anywhere in `into`'s tree, which would move nodes the walk holds.
void Aggregator::fold_from(const CallTree& tree, const std::vector<std::uint64_t>& subtree_calls, std::uint32_t index,
                           AggNode& into, std::size_t level, std::uint64_t serial,
                           std::vector<std::uint32_t>& adopted) const {
    const auto& nodes = tree.nodes();
    struct Walk {
        std::uint32_t next_child;  // 0: done
        AggNode* into;
        std::size_t level;
    };
    // Only the innermost walk's node gains children, so the nodes the others hold never move.
    std::vector<Walk> walks{Walk{nodes[index].first_child, &into, level}};
    while (!walks.empty()) {
        Walk& w = walks.back();
        const std::uint32_t c = w.next_child;
        if (c == 0) {
            walks.pop_back();
            continue;
        }
        w.next_child = nodes[c].next_sibling;
        if (subtree_calls[c] == 0) continue;  // nothing completed here since the last reset
        const CallNode& n = nodes[c];
        if (n.site == nullptr) {
            // An adopted context: this thread's scopes nest under the spawning scope's path,
            // which itself receives no time (and no thread count) from this thread.
            adopted.push_back(c);
            continue;
        }
        AggNode* const parent = w.into;
        const std::size_t parent_level = w.level;
        if (parent_level == kMaxTreeDepth) {
            ++parent->folded_below;
            walks.push_back(Walk{n.first_child, parent, parent_level});
            continue;
        }
        AggNode& child = parent->child(n.site->name);
        std::uint64_t ticks = n.total_ticks;
        if (subtract_marker_cost_) {
            const std::uint64_t instrumentation = (subtree_calls[c] - n.count) * marker_cost_ticks_;
            ticks = ticks > instrumentation ? ticks - instrumentation : 0;
        }
        child.charge(clock_.to_ns(ticks) * 1e-9, n.count, serial);
        walks.push_back(Walk{n.first_child, &child, parent_level + 1});
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
    std::vector<std::uint32_t> adopted;
    fold_from(track.tree, subtree_calls, CallTree::kRoot, root, 0, track.serial, adopted);
    while (!adopted.empty()) {
        const std::uint32_t placeholder = adopted.back();
        adopted.pop_back();
        std::size_t level = 0;
        AggNode& at = node_at_path(root, nodes[placeholder].key, &level);
        fold_from(track.tree, subtree_calls, placeholder, at, level, track.serial, adopted);
    }
}

void Aggregator::reset(const std::vector<ThreadTrack*>& live) {
    retired_ = AggNode{};
    grafted_ = AggNode{};
    extras_.gauges.clear();
    stats_.reset();
    for (ThreadTrack* t : live) t->tree.reset_counts();
}

void Aggregator::retire(ThreadTrack& track) {
    if (openers_held_.load(std::memory_order_relaxed) != 0) take_closed_elsewhere(track);
    apply_closed_elsewhere(track, ~std::uint64_t{0});  // its ring is read: nothing else of it comes
    fold(track, retired_);
    stats_.retire(track.tree);
}

void Aggregator::add_graft(std::uint64_t context_id, const std::string& graft_path, const TimerTree& tree) {
    std::uint64_t path_id = 0;  // the root, if the context is none or out of the window
    if (context_id != 0) captured_path(context_id, path_id);
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
