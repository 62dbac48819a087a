#!/usr/bin/env bash
# Plants known one-line bugs, one at a time, in every area (the engine core, stats, signatures,
# flame, timelines, steps, gauges, strict JSON/UTF-8, merge, CLI, process settings, the Python
# module) and checks that the tests catch each one.
#
#   scripts/mutate.sh              every mutation (before a release)
#   scripts/mutate.sh ID...        only these (IDs as --list shows them)
#   scripts/mutate.sh --sample K   K mutations chosen from the commit (CI): `git rev-parse HEAD`
#                                  (or $RINGPROF_MUTATE_SEED) picks where the K evenly spaced
#                                  choices start, so every mutation runs over a few commits
#   scripts/mutate.sh --list       the list: ID, area, file
#
# Mutations are planted in place and built in the normal build ($RINGPROF_MUTATE_BUILD, default
# $RINGPROF_BUILD_ROOT/release as scripts/dev.sh builds it, else build/release; the `release`
# preset, configured here if it is missing): only the test programs a
# mutation names are rebuilt, so a warm build pays one compile and a few links per mutation, with
# or without ccache. The file is put back byte for byte after each mutation, and on an interrupt
# too (trap); at the end the programs are rebuilt from the unmutated sources, so the build is left
# as a normal build leaves it. A mutation is "caught" when a test fails (or the mutant does not
# compile), "SURVIVED" when all pass, and "stale" when its original text is no longer in the file
# (the code moved on: update the mutation). Exit code: 0 every mutation was caught; 1 one survived
# or is stale; 2 the unmutated tests do not pass, or the build failed (nothing can be judged).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGPROF_MUTATE_BUILD:-"${RINGPROF_BUILD_ROOT:-$here/build}/release"}
jobs=${RINGPROF_JOBS:-$(nproc)}
deadline=${RINGPROF_MUTATE_TEST_SECONDS:-300}
log_dir="$build/mutate"

ids=() areas=() files=() originals=() replacements=() targets=() filters=()
# mutation ID AREA FILE ORIGINAL REPLACEMENT "TARGETS" FILTER
# ORIGINAL is exact text (every occurrence in FILE is replaced). TARGETS are what catches it:
# ringprof_<area>_tests programs (run with the GoogleTest FILTER), ringprof_cli (built for the
# tests that run the tool) and python (the ringprof_python module: tests/python run with pytest,
# FILTER as its -k expression, against the build installed in a scratch prefix as the ctest
# 'python' does, so tests that build a C++ extension against the installed package run too).
mutation() {
    ids+=("$1") areas+=("$2") files+=("$3") originals+=("$4") replacements+=("$5") targets+=("$6") filters+=("$7")
}

# ---- core: rings, drop accounting, the timer tree, the clock ---------------------------------
# Ring admission: fits() admits one event more than the ring holds.
mutation ring_fits_off_by_one core sdk/src/record/ring_room.cpp \
    'if (fill > cap) {' 'if (fill > cap + 1) {' \
    ringprof_core_tests 'Ring.*:RingAdmission.*:DropAccounting.*:Session.*'
# Scopes ended on another thread: the opener's ring keeps the room of Ends that never come.
mutation ended_elsewhere_room_kept core sdk/src/record/ring_room.cpp \
    'limit_ -= std::min(ended - ended_taken_, open_scopes());' 'limit_ -= 0 * std::min(ended - ended_taken_, open_scopes());' \
    ringprof_core_tests 'Ring.*'
# ... and a refused scope ended there keeps the opener's later scopes refused.
mutation refused_elsewhere_stays_refused core sdk/src/record/ring_room.cpp \
    'suppressed_ -= std::min(refused - refused_taken_, suppressed_);' 'suppressed_ -= 0 * std::min(refused - refused_taken_, suppressed_);' \
    ringprof_core_tests 'Ring.*'
# A recorded wait or growth writes its End without its Begin (the one function both go through).
mutation own_scope_begin_lost core sdk/src/record/ring_room.cpp \
    'ring.write(scope, kOwnScopeEvents);' 'ring.write(scope + 1, 1);' \
    ringprof_core_tests 'Ring.*:RingGrowth.*:WaitPolicy.*'
# A ring goes back to the pool while another thread still holds a scope of its exited thread.
mutation held_ring_reused core sdk/src/record/thread_ring.hpp \
    'return ring_.ends_made_elsewhere() < ends_due_at_exit_;' 'return false;' \
    ringprof_life_tests 'ClosedElsewhere.*'
# An exited thread's track goes before the end another thread holds comes: that end is lost.
# (The other half of that rule, every_note_read, is a race only a loaded run shows:
# CoroutineElsewhere.* under TSan failed about 1 run in 4 without it.)
mutation exited_track_gone_before_held_end core sdk/src/drain/drainer.cpp \
    '!track.ring->held_elsewhere() && track.every_note_read()' 'track.every_note_read()' \
    ringprof_life_tests 'ClosedElsewhere.AScopeHeldElsewhere*'
# Parallel rule: parallel from 3 threads instead of 2.
mutation parallel_at_three_threads core sdk/src/tree/parallel_rule.hpp \
    'kParallelThreads = 2;' 'kParallelThreads = 3;' \
    ringprof_timers_tests 'ParallelRuleEdge.*'
# Parallel rule: a merge marked parallel (a worker's tree, merge-timers' files) marks nothing.
mutation merged_worker_not_parallel core sdk/src/tree/merge_nodes.hpp \
    'parallel_after_merge(into.is_parallel, from.is_parallel, parallel_merge);' 'parallel_after_merge(into.is_parallel, from.is_parallel, false);' \
    "ringprof_timers_tests ringprof_cli" 'ParallelRuleEdge.*:MlAgentsScenario.*:MergeTimersCli.*'
# Parallel rule: a merged tree's time counts as one more thread's.
mutation merged_tree_counts_a_thread core sdk/src/tree/agg_node.cpp \
    'contributor != 0 && contributor != last_contributor' 'contributor != last_contributor' \
    ringprof_timers_tests 'TimerNodeKeys.*'
# Self time: not clamped at zero under parallel children.
mutation self_not_clamped core sdk/src/tree/timer_tree.cpp \
    'return std::max(0.0, total - children_total);' 'return total - children_total;' \
    ringprof_timers_tests 'SelfTime.*'
# Total: a node keeps only its last call's time.
mutation total_keeps_last_call core sdk/src/drain/call_tree.hpp \
    'n.total_ticks += ticks;' 'n.total_ticks = ticks;' \
    ringprof_timers_tests 'MarkerCost.*:ClockConversion.*'
# Count: a thread's node counts one call however many ran.
mutation count_stuck_at_one core sdk/src/drain/call_tree.hpp \
    '++n.count;' 'n.count = 1;' \
    ringprof_timers_tests 'MlAgentsScenario.*:ParallelRuleEdge.*'
# Scopes closed out of nesting: what ran below a held-aside scope stays below it.
mutation held_aside_keeps_its_children core sdk/src/drain/aggregator.cpp \
    'under[i] = held ? under[parent] : home[i];' 'under[i] = home[i];' \
    ringprof_timers_tests 'MisnestedEvents.*'
# Deep nesting: the nodes the drainer's fold folds below kMaxTreeDepth are not counted.
mutation fold_forgets_folded_nodes core sdk/src/drain/aggregator.cpp \
    '++parent->folded_below;' '(void)parent;' \
    ringprof_core_tests 'DeepNesting.*'
# Fork gate: the end of one fork clears every fork, so members run on while a second one waits.
mutation fork_end_clears_every_fork core sdk/src/process/fork_gate.cpp \
    '    --g.forks;' '    g.forks = 0;' \
    ringprof_life_tests 'ForkGate.AMemberStaysParkedUntilTheLastOfTwoForksIsDone'
# Fork gate: a ringprof thread stops counting when its body returns, not when it is joined, so a
# fork lands in its end (where the thread library frees).
mutation gated_thread_end_uncounted core sdk/src/process/fork_gate.cpp \
    'return seat->detached;  // nobody will join it' 'return true;' \
    ringprof_life_tests 'ForkGate.AForkWaitsForAThreadThatRanItsLastLineUntilItIsJoined'
# Signal end: the session it ends is not pinned, so the program's own end of it, under way at
# once, finds it stopping, returns, and frees it under the signal's end.
mutation signal_end_unpinned core sdk/src/session/session.cpp \
    'PinnedSession current;' 'struct { SessionImpl* i = g_current_impl; SessionImpl* impl() const { return i; } explicit operator bool() const { return i != nullptr; } } current;' \
    ringprof_life_tests 'SignalEnd.ASessionDestroyedWhileASignalEndsItWaitsForThatEndAndEveryOutputIsWhole'
# Count: the process tree keeps only the last thread's calls.
mutation count_of_last_thread core sdk/src/tree/agg_node.cpp \
    'count += calls;' 'count = calls;' \
    ringprof_timers_tests 'ParallelRuleEdge.*'
# Drop accounting: a refused scope is not counted.
mutation refusal_not_counted core sdk/include/ringprof/detail/ring.hpp \
    'add(dropped_, 1);' 'add(dropped_, 0);' \
    ringprof_core_tests 'DropAccounting.*:Session.*'
# Drop accounting: drops of exited threads are forgotten.
mutation exited_thread_drops_forgotten core sdk/src/drain/drainer.cpp \
    'retired_counts_ += track.counts();' '(void)track.counts();' \
    ringprof_core_tests 'DropAccounting.*'
# Drop accounting: drops of live threads are left out of the total.
mutation live_thread_drops_left_out core sdk/src/drain/drainer.cpp \
    'for (const ThreadInfo& t : snapshot.threads) add_ring_counts(totals, t);' \
    'for (const ThreadInfo& t : snapshot.threads) (void)t;' \
    ringprof_core_tests 'DropAccounting.*:Session.*'
# Plain signal handlers: a marker writes its ring without pointing the thread at the refusing
# ring, so a handler's marker landing inside it overwrites the slot and both scopes are lost.
mutation marker_write_unguarded core sdk/include/ringprof/detail/recorder.hpp \
    '    t_ring = signal_handler_ring();' '    static_cast<void>(signal_handler_ring());' \
    ringprof_life_tests 'SignalHandlerMarkers.*'
# Unloaded modules: their sites stay keys, so a plugin mapped where another was takes its names.
mutation unloaded_sites_stay_keys core sdk/src/drain/site_table.cpp \
    'it = by_address_.erase(it);' '++it;' \
    ringprof_life_tests 'PluginUnload.*'
# Timeline backpressure: a range writes all its spans however little room the writer's queue has.
mutation range_ignores_queue_room core sdk/src/drain/drainer.cpp \
    'const std::uint64_t split = head - tail <= fits ? head : tail + fits;' 'const std::uint64_t split = head;' \
    ringprof_timeline_tests 'TimelineWriter.*'
# The end's patience: progress is not noticed, so a slow but working writer is given up on.
mutation end_ignores_progress core sdk/src/drain/end_patience.hpp \
    '                last_move = now;' '                (void)now;' \
    ringprof_life_tests 'End.WaitsWhileATimelineBackendMakesProgress'
# Rings a given-up drainer hands back are never adopted: the next session misses their scopes.
mutation handed_back_rings_not_adopted core sdk/src/drain/drainer.cpp \
    '        for (ThreadRing* parked : RingRegistry::instance().take_parked()) {' \
    '        for (ThreadRing* parked : std::vector<ThreadRing*>{}) {' \
    ringprof_life_tests 'End.ADrainerGivenUpOnNeverTakesTheNextSessionsScopes'
# A signal at its default action is left to kill the process before the outputs are written.
mutation default_signal_not_taken core sdk/src/session/signal_end.cpp \
    '    act.sa_handler = on_signal;' '    act.sa_handler = SIG_DFL;' \
    ringprof_life_tests '*DefaultAction*'
# Threads: ringprof's thread, started by the program's thread, stays on that thread's CPU.
mutation quiet_thread_stays_on_creators_cpu core sdk/src/process/quiet_thread.cpp \
    '        step_off_cpu(creator_cpu);' '' \
    ringprof_life_tests 'OwnThreads.AQuietThreadStartedByAProgramsThreadBeginsOnAnotherCpuThanItsCreator'
# Signals: one that comes before the drainer has started the signal thread kills at once, outputs
# unwritten.
mutation early_signal_not_kept core sdk/src/session/signal_end.cpp \
    'g_thread.load() == kNoThread' 'g_thread.load() != kThreadRunning' \
    ringprof_life_tests 'SignalEnd.ASignalBefore*'
# Clock conversion: ticks divided by the rate instead of multiplied.
mutation ticks_divided_by_rate core sdk/src/drain/clock_calibration.hpp \
    'return static_cast<double>(ticks) * ns_per_tick();' 'return static_cast<double>(ticks) / ns_per_tick();' \
    ringprof_timers_tests 'ClockConversion.*'
# Clock conversion: the calibrated rate is off by a factor of two.
mutation rate_halved core sdk/src/drain/clock_calibration.cpp \
    'static_cast<double>(now.mono_ns - start_mono_ns_) /' '0.5 * static_cast<double>(now.mono_ns - start_mono_ns_) /' \
    ringprof_timers_tests 'ClockConversion.*'
# Clock conversion: timeline offsets use a rate of 1 ns per tick.
mutation offsets_ignore_rate core sdk/src/drain/clock_calibration.cpp \
    'round_half_away(static_cast<double>(dt) * s.ns_per_tick);' 'round_half_away(static_cast<double>(dt));' \
    ringprof_timers_tests 'ClockConversion.*'
# The session's start leaves stocking the segment pool to the drainer thread: a thread recording
# from the first moment finds it empty and maps its own segment.
mutation pool_left_for_the_drainer core sdk/src/drain/drainer.cpp \
    '    refill_hot_segments_for_session(/*faulted=*/false);' '    static_cast<void>(0);' \
    ringprof_core_tests 'Session.*'

# set_signal_handler wraps SIG_IGN in its trampoline as if it were a function: the signal crashes.
mutation signal_ignore_wrapped_as_a_function core sdk/src/record/signal_handler.cpp \
    '(act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN)' '(act.sa_handler != SIG_DFL)' \
    ringprof_life_tests 'SignalDispositions.*'

# A misnested AdoptEnd pops the scope above the context instead of closing the context: not
# counted, and the thread's later scopes stay under the adopted context.
mutation adopt_end_misnest_popped core sdk/src/drain/aggregator.cpp \
    '                        close_misnested(track, nullptr, e.tsc);' '                        track.stack.pop_back();' \
    ringprof_timers_tests 'AdoptMisnest.*'

# ---- stats: the cProfile-style table ----------------------------------------------------------
# The header's "in X seconds" adds cumulative times (counting nested time twice).
mutation stats_total_adds_cumtime stats sdk/src/stats/stats_table.cpp \
    'total_time += f.counts.tottime;' 'total_time += f.counts.cumtime;' \
    ringprof_stats_tests 'StatsTable*.*:StatsCli.*:PstatsFile.*'
# The first percall column divides by primitive calls (a wrong total under recursion).
mutation stats_percall_by_primitive stats sdk/src/stats/stats_table.cpp \
    'c.tottime / static_cast<double>(c.ncalls)' 'c.tottime / static_cast<double>(c.primitive_calls)' \
    ringprof_stats_tests 'StatsTable*.*:ProfileApi.*:PstatsFile.*'
# --sort calls puts the fewest calls first.
mutation stats_calls_sort_ascending stats sdk/src/stats/stats_table.cpp \
    'if (x.ncalls != y.ncalls) return x.ncalls > y.ncalls;' 'if (x.ncalls != y.ncalls) return x.ncalls < y.ncalls;' \
    ringprof_stats_tests 'StatsTable*.*:StatsSortKeys.*'
# Stripped file names keep everything after the first slash instead of the last.
mutation stats_strip_dirs_first_slash stats sdk/src/stats/stats_table.cpp \
    "const std::size_t slash = file.find_last_of('/');" "const std::size_t slash = file.find_first_of('/');" \
    ringprof_stats_tests 'StatsTable*.*:StatsCli.*'
# A recursive call counts as a primitive one (cProfile's 2/1 becomes 2).
mutation stats_recursion_counted_primitive stats sdk/src/drain/stats_accumulator.cpp \
    'if (!recursive) {' 'if (true) {' \
    ringprof_stats_tests 'ProfileApi.*:StatsTable*.*'

# ---- signatures (C++) -------------------------------------------------------------------------
# The signature key leaves out the recorded values (shape, length): different shapes, one row.
mutation sig_key_without_values signatures sdk/src/drain/signature_table.cpp \
    'scratch_.push_back(p.tsc);' '(void)p.tsc;' \
    ringprof_stats_tests 'SignatureTypes.*:StatsTable*.*'
# The one-entry cache compares key sizes, not keys: a new signature of the same shape reuses the last row.
mutation sig_cache_compares_sizes signatures sdk/src/drain/signature_table.cpp \
    'if (scratch_ == last_key_) return last_id_;' 'if (scratch_.size() == last_key_.size()) return last_id_;' \
    ringprof_stats_tests 'SignatureTypes.*:StatsTable*.*'
# A rank-1 shape prints as (n) instead of Python's 1-tuple (n,).
mutation sig_rank_one_not_a_tuple signatures sdk/src/drain/signature_format.cpp \
    'if (rank == 1) out += ",";' 'if (rank == 0) out += ",";' \
    ringprof_stats_tests 'SignatureTypes.*'

# ---- signatures (Python) ----------------------------------------------------------------------
# The key of a call leaves out the types *args received: two calls passing different types
# share the first one's row.
mutation py_sig_key_without_varargs signatures python/src/call_signature.cpp \
    'for (Py_ssize_t i = 0; i < count; ++i) append_value_key(PyTuple_GET_ITEM(args, i), key);' ';' \
    python 'star_args'
# The key leaves out an array's dtype: float32 and float64 arrays of one shape become one row.
mutation py_sig_key_without_dtype signatures python/src/call_signature.cpp \
    'key.push_back(reinterpret_cast<std::uintptr_t>(a->descr));' 'key.push_back(0);' \
    python 'signature'
# The key leaves out an array's last dimension: shapes (2, 3) and (2, 4) become one row.
mutation py_sig_key_without_last_dim signatures python/src/call_signature.cpp \
    'for (int d = 0; d < a->nd; ++d) key.push_back' 'for (int d = 0; d + 1 < a->nd; ++d) key.push_back' \
    python 'signature'
# A method's self is shown as an argument.
mutation py_sig_shows_self signatures python/src/call_signature.cpp \
    'std::strcmp(first, "self") == 0' 'std::strcmp(first, "this") == 0' \
    python 'signature'

# ---- flame: HTML page, SVG, folded stacks -----------------------------------------------------
# The utilization heatmap paints every sample the same pale colour, whatever its percent.
mutation flame_heatmap_ignores_value flame sdk/src/flame/assets/flame.js \
    'var f = Math.max(0, Math.min(1, v / 100));' 'var f = 0;' \
    ringprof_flame_tests 'FlameBrowser.TimelineDrawsEachCoreAndGpuAsAHeatmapLaneUnderTheThreads'
# Samples placed on the epoch's clock instead of the timeline's: every lane far right of the view.
mutation flame_utilization_not_on_timeline_clock flame sdk/src/flame/profile_from_trace.cpp \
    'lane.t_ns.push_back(std::llround((r.timestamp * 1e6 - p.timeline.origin_us) * 1e3));' \
    'lane.t_ns.push_back(std::llround((r.timestamp * 1e6) * 1e3));' \
    ringprof_flame_tests 'FlameUtilizationLanes.*:FlameBrowser.TimelineDraws*'
# The SVG tooltip's "% of parent" is taken against the root's total.
mutation svg_percent_of_root flame sdk/src/flame/svg.cpp \
    'fixed(100.0 * n.total / f.parent->total, 1)' 'fixed(100.0 * n.total / root.total, 1)' \
    ringprof_flame_tests 'Svg.*'
# Folded stacks give each frame its total, not its self time (children counted twice).
mutation folded_total_not_self flame sdk/src/flame/folded.cpp \
    'for (const TimerNode& c : node.children) self -= micros(c.total);' '' \
    ringprof_flame_tests 'Folded.*'
# A ';' inside a name is kept, splitting the frame in two.
mutation folded_semicolon_kept flame sdk/src/flame/folded.cpp \
    "out += ':';" "out += ';';" \
    ringprof_flame_tests 'Folded.*'
# Children that ran in parallel and add up to more than their parent overflow its width.
mutation flame_layout_ignores_children flame sdk/src/flame/flame_layout.cpp \
    'return sum > node.total ? sum : node.total;' 'return node.total;' \
    ringprof_flame_tests 'Svg.*:Html.*'
# The page marks no frame parallel.
mutation html_parallel_flag_lost flame sdk/src/flame/html.cpp \
    "cols.f += node.is_parallel ? '1' : '0';" "cols.f += '0';" \
    ringprof_flame_tests 'Html.*'
# The icicle writes no name into a frame narrower than 2,400 px: the frames go unlabelled.
mutation flame_frames_unlabelled flame sdk/src/flame/assets/flame.js \
    '    if (f.w > 24) {' '    if (f.w > 2400) {' \
    ringprof_flame_tests 'FlameBrowserDemo.TrainersWorkIsLabelled*'
# The page's tooltips put names in as markup: a scope named "<img onerror=...>" runs its script.
mutation flame_tooltip_names_as_markup flame sdk/src/flame/assets/flame.js \
    '  e.textContent = text;' '  e.innerHTML = text;' \
    ringprof_flame_tests 'FlameBrowser.NamesThatAreMarkup*'

# A trace's spans nest by start + dur as doubles: on an epoch base a sibling becomes a child.
mutation flame_nests_by_rounded_sum flame sdk/src/flame/profile_from_trace.cpp \
    'stack.push_back({&n, s.end});' 'stack.push_back({&n, s.ts + s.dur});' \
    ringprof_flame_tests 'TraceInput.*'

# ---- timelines: pythontimeline.json, trace.json.gz, filters -----------------------------------
# RINGPROF_TIMELINE_MAX_DEPTH keeps one level more than asked.
mutation timeline_depth_filter_off_by_one timelines sdk/src/timeline/timeline_writer.cpp \
    'if (scope && (r.depth >= deepest ||' 'if (scope && (r.depth > deepest ||' \
    ringprof_timeline_tests 'TimelineFilters.*'
# pythontimeline spans are stamped from the epoch instead of the file's time base.
mutation pythontimeline_ts_not_relative timelines backends/pythontimeline_backend.cpp \
    'append_int(buf_, b - base_us_);' 'append_int(buf_, b);' \
    ringprof_timeline_tests 'PythonTimeline.*:OneClock.*'
# A scope inside a step loses its step_num in pythontimeline.
mutation pythontimeline_scope_step_key timelines backends/pythontimeline_backend.cpp \
    'buf_ += ", \"args\": {\"step_num\": \"";' 'buf_ += ", \"args\": {\"step\": \"";' \
    ringprof_timeline_tests 'PythonTimeline.*:Steps.*'
# Chrome trace durations are the span's end time, not its length.
mutation chrome_trace_dur_is_end timelines backends/chrome_trace_backend.cpp \
    'append_trace_dur(buf, static_cast<std::int64_t>(s.begin_ns - start_epoch_ns),' 'append_trace_dur(buf, 0,' \
    ringprof_timeline_tests 'ChromeTrace.*:OneClock.*'
# A trace span's dur is its length floored to the grid, not the difference of its ends' grid
# times: ts + dur then falls short of or past the end, and touching spans stop nesting exactly.
mutation chrome_trace_dur_off_the_grid timelines backends/timeline_text.hpp \
    'append_grid_us(out, trace_grid_units(end_ns) - trace_grid_units(begin_ns));' \
    'append_grid_us(out, trace_grid_units(end_ns - begin_ns));' \
    ringprof_timeline_tests 'ChromeTrace.*:OneClock.*:TraceTimeText.*'

# The pythontimeline's ringprof_drops record says no span was filtered out.
mutation pythontimeline_drops_record_zero timelines backends/pythontimeline_backend.cpp \
    'append_int(buf_, static_cast<std::int64_t>(status_.filtered_spans));' 'append_int(buf_, 0);' \
    ringprof_timeline_tests 'DropRecords.*'

# ---- steps: ringprof steps statistics ---------------------------------------------------------
# A step number of 19 digits is "no step" again (the reader's old 18-digit limit).
mutation steps_number_of_19_digits steps sdk/src/trace/parsed_event.cpp \
    'if (v > (kMaxMagnitude - digit) / 10) return false;' 'if (v > 99999999999999999 / 10) return false;' \
    "ringprof_steps_tests ringprof_cli" 'StepNumbers.*'
# A negative step is "no step" again when the pythontimeline labels a scope.
mutation pythontimeline_negative_step_unlabeled steps backends/pythontimeline_backend.cpp \
    '} else if (s.has_step) {' '} else if (s.step >= 0) {' \
    "ringprof_steps_tests ringprof_cli" 'StepNumbers.*'
# merge-timers writes counts above 2^53 that no reader takes back.
mutation timers_count_above_2_53_written cli sdk/src/timers/timers_json_numbers.cpp \
    'if (n <= kMaxExactCount) return std::nullopt;' 'return std::nullopt;' \
    "ringprof_timers_tests ringprof_cli" 'TimersNumbers.*'
# p95 is the 90th percentile.
mutation steps_p95_is_p90 steps sdk/src/steps/describe.cpp \
    'd.p95 = linear_quantile(values, 0.95);' 'd.p95 = linear_quantile(values, 0.90);' \
    "ringprof_steps_tests ringprof_cli" 'StepsSemantics.*:Groupings/StepsSmdebugAnswer.*'
# The mean divides by one step more than there are.
mutation steps_mean_one_too_many steps sdk/src/steps/describe.cpp \
    'd.mean = sum / static_cast<double>(values.size());' 'd.mean = sum / static_cast<double>(values.size() + 1);' \
    "ringprof_steps_tests ringprof_cli" 'StepsSemantics.*:Groupings/StepsSmdebugAnswer.*'
# The slowest node of a step is the fastest one.
mutation steps_slowest_is_fastest steps sdk/src/steps/step_statistics.cpp \
    'if (times[i] > times[slowest]) slowest = i;' 'if (times[i] < times[slowest]) slowest = i;' \
    "ringprof_steps_tests ringprof_cli" 'StepsStragglers.*'
# A step exactly at median + k * MAD is an outlier (the rule is strictly above).
mutation steps_outlier_at_the_bound steps sdk/src/steps/step_statistics.cpp \
    'st.outlier = st.duration_us > a.step_median_us' 'st.outlier = st.duration_us >= a.step_median_us' \
    "ringprof_steps_tests ringprof_cli" 'StepsStragglers.*'

# The args pre-filter looks for "name" in quotes: args holding only layer_name are never read.
mutation steps_args_prefilter_misses_layer_name steps sdk/src/steps/step_events.cpp \
    'if (args.find("name\"") == std::string_view::npos) return false;' \
    'if (args.find("\"name\"") == std::string_view::npos) return false;' \
    ringprof_steps_tests 'StepsArgsKeys.*'

# ---- gauges -----------------------------------------------------------------------------------
# A gauge's minimum tracks the largest value.
mutation gauge_min_is_max gauges sdk/src/tree/timer_tree.cpp \
    'min = std::min(min, v);' 'min = std::max(min, v);' \
    "ringprof_core_tests ringprof_timers_tests" 'Gauge.*:TimersJson.*:MlAgentsScenario.*'
# A gauge keeps its first value instead of its latest.
mutation gauge_keeps_first_value gauges sdk/src/tree/timer_tree.cpp \
    'if (count == 0 || when_ns >= updated_ns) {' 'if (count == 0) {' \
    "ringprof_core_tests ringprof_timers_tests" 'Gauge.*:TimersJson.*:MlAgentsScenario.*'
# Merged gauges keep only the other file's count.
mutation gauge_merge_count_replaced gauges sdk/src/tree/timer_tree.cpp \
    'count += other.count;' 'count = other.count;' \
    "ringprof_core_tests ringprof_timers_tests ringprof_cli" 'Gauge.*:TimersJson.*:MergeTimersCli.*'
# A NaN or infinite value becomes the gauge's value instead of being counted apart.
mutation gauge_takes_non_finite gauges sdk/src/tree/timer_tree.cpp \
    'if (!std::isfinite(v)) {' 'if (false) {' \
    "ringprof_core_tests ringprof_timers_tests ringprof_timeline_tests" 'Gauge.*:TimersReaderShape.*:StrictJson.*'

# ---- strict JSON and UTF-8 --------------------------------------------------------------------
# Overlong three-byte forms (E0 80..9F) pass as valid.
mutation utf8_overlong_three_bytes json sdk/src/json/json_text.cpp \
    'const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80' 'const unsigned char lo = c == 0xE0 ? 0x80 : 0x80' \
    "ringprof_timeline_tests ringprof_merge_tests" 'StrictUtf8.*:StrictJson.*:JsonPlainAscii.*'
# UTF-16 surrogates encoded in UTF-8 (ED A0..BF) pass as valid.
mutation utf8_surrogates json sdk/src/json/json_text.cpp \
    'hi = c == 0xED ? 0x9F : 0xBF;' 'hi = c == 0xED ? 0xBF : 0xBF;' \
    "ringprof_timeline_tests ringprof_merge_tests" 'StrictUtf8.*:StrictJson.*:JsonPlainAscii.*'
# Code points above U+10FFFF (F4 90..BF) pass as valid.
mutation utf8_above_10ffff json sdk/src/json/json_text.cpp \
    'hi = c == 0xF4 ? 0x8F : 0xBF;' 'hi = c == 0xF4 ? 0xBF : 0xBF;' \
    "ringprof_timeline_tests ringprof_merge_tests" 'StrictUtf8.*:StrictJson.*:JsonPlainAscii.*'
# Overlong two-byte forms (C0, C1) pass as valid.
mutation utf8_overlong_two_bytes json sdk/src/json/json_text.cpp \
    'if (c >= 0xC2 && c <= 0xDF)' 'if (c >= 0xC0 && c <= 0xDF)' \
    "ringprof_timeline_tests ringprof_merge_tests" 'StrictUtf8.*:StrictJson.*:JsonPlainAscii.*'
# The low half of an escaped surrogate pair loses a bit.
mutation json_low_surrogate_truncated json sdk/src/json/json_text.cpp \
    'append_u_escape(o, 0xDC00 + ((cp - 0x10000) & 0x3FF));' 'append_u_escape(o, 0xDC00 + ((cp - 0x10000) & 0x1FF));' \
    "ringprof_timeline_tests ringprof_merge_tests" 'StrictUtf8.*:StrictJson.*:JsonPlainAscii.*:JsonEscape.*'
# A float written in exponent form gets ".0" appended (1e-05.0: not JSON).
mutation json_float_exponent_dot json sdk/src/json/json_text.cpp \
    'if (out.find_first_of(".e", start) == std::string::npos)' 'if (out.find_first_of(".", start) == std::string::npos)' \
    "ringprof_core_tests ringprof_timeline_tests" 'PythonFloat.*:TimersJson.*:StrictJson.*'

# An event past the 64 MiB limit inside a trace object is taken for "not a trace": flame then
# answers "not a timers file" instead of naming the limit.
mutation reader_limit_in_object_not_a_trace strict sdk/src/trace/event_stream.cpp \
    'if (object_form_ && !array_seen_) throw NotATraceError(what);' 'if (object_form_) throw NotATraceError(what);' \
    "ringprof_badinput_tests ringprof_cli" 'BadInputCorpus.EverySubcommand*'

# ---- merge: ringprof merge --------------------------------------------------------------------
# An event that starts exactly at --end is left out (the time range is inclusive).
mutation merge_end_bound_exclusive merge sdk/src/merge/merged_timeline.cpp \
    'm::compare(range_->second, e.start) < 0' 'm::compare(range_->second, e.start) <= 0' \
    ringprof_merge_tests 'MergeRangeBounds.*:MergeRanges.*'
# An event that ends exactly at --start is left out (the time range is inclusive).
mutation merge_start_bound_exclusive merge sdk/src/merge/merged_timeline.cpp \
    'm::compare(end, range_->first) < 0' 'm::compare(end, range_->first) <= 0' \
    ringprof_merge_tests 'MergeRangeBounds.*:MergeRanges.*'
# --unit step includes events that start exactly when the end step starts ([start, end) becomes [start, end]).
mutation merge_step_end_inclusive merge sdk/src/merge/trace_selection.cpp \
    'return TimeRange(*steps.start_of_first, subtract(*steps.start_of_second, TraceNumber::integer(1)));' \
    'return TimeRange(*steps.start_of_first, *steps.start_of_second);' \
    ringprof_merge_tests 'MergeRangeBounds.*:MergeRanges.*'
# --start equal to --end (one instant) is refused.
mutation merge_empty_time_range_refused merge sdk/src/merge/trace_selection.cpp \
    'if (unit == MergeUnit::time && request->second < request->first) {' \
    'if (unit == MergeUnit::time && request->second <= request->first) {' \
    "ringprof_merge_tests ringprof_cli" 'MergeRangeBounds.*:MergeRanges.*:MergeCli.*'
# Every phase gets the same process id: two training phases become one track group.
mutation merge_phases_share_a_pid merge sdk/src/merge/track_numbering.cpp \
    'pid = next_in_range[r]++;' 'pid = next_in_range[r];' \
    ringprof_merge_tests 'TrackNumbering.*:MergeTrackNumbers.*'

# --suffix pythontimeline.json still merges ringprof's <run>_trace.json.gz beside framework/.
mutation merge_suffix_filter_skips_ringprof_trace merge sdk/src/merge/trace_files.cpp \
    '!ends_with(name, "_trace.json.gz") || !passes_suffix_filter(full, suffix_filter))' '!ends_with(name, "_trace.json.gz"))' \
    ringprof_merge_tests 'MergeSuffixFilter.*'
# A row exactly 20 ms from a low-GPU sample stays out of its bottleneck marker (smdebug includes both ends).
mutation merge_bottleneck_window_exclusive merge sdk/src/merge/system_metric_events.cpp \
    'return sample - kBottleneckWindowUs <= ts && ts <= sample + kBottleneckWindowUs;' \
    'return sample - kBottleneckWindowUs < ts && ts < sample + kBottleneckWindowUs;' \
    ringprof_merge_tests 'SystemTraceEvents.*:MergeSystemMetrics.*'
# System rows sorted with a different cut-over to insertion sort than numpy's: another order of equal times.
mutation merge_numpy_small_sort merge sdk/src/merge/numpy_argsort.cpp \
    'while ((pr - pl) > kSmallQuicksort) {' 'while ((pr - pl) > kSmallQuicksort + 1) {' \
    ringprof_merge_tests 'NumpyArgsort.*:MergeSystemMetrics.*'

# A span whose start was rounded onto the time base keeps the file's dur: ts + dur misses its end.
mutation merge_rounded_start_keeps_dur merge sdk/src/merge/merged_timeline.cpp \
    'const bool keep = m::lands_on(e.start, e.dur, e.end);' 'const bool keep = true;' \
    ringprof_merge_tests 'MergeRingprofOutput.*'
# A time on the 2^-10 us grid printed as Python's repr: the text is not the double consumers read.
mutation merge_time_printed_as_repr merge sdk/src/trace/trace_number.cpp \
    'if (!float_on_time_grid(n)) {' 'if (true) {' \
    ringprof_merge_tests 'MergeRingprofOutput.*'

# ---- system: the system-metrics sampler -------------------------------------------------------
# CPU utilization counts I/O wait as work (SageMaker reports it apart, as I/OWaitPercentage).
mutation system_cpu_busy_counts_iowait system sdk/src/system/proc_readings.hpp \
    'std::uint64_t busy() const { return total() - idle - iowait; }' 'std::uint64_t busy() const { return total() - idle; }' \
    ringprof_system_tests 'HostRates.*'
# Every process of a node samples: the claim never says taken.
mutation system_claim_never_taken system sdk/src/process/run_claim.cpp \
    'return try_claim(name) != Outcome::Taken;' 'return try_claim(name) != Outcome::Taken || true;' \
    ringprof_system_tests 'SystemSampler.*'
# The sampler's rows never reach the session's timeline: no counter tracks in trace.json.gz.
mutation system_counters_not_posted system sdk/src/system/system_sampler.cpp \
    'if (options.on_sample) options.on_sample(sample, options.node);' 'static_cast<void>(sample);' \
    ringprof_system_tests 'SystemCountersInTheTrace.*'
# A posted counter's name is a temporary: backends that cache names by address mix counters up.
mutation system_counter_name_not_kept system sdk/src/timeline/timeline_writer.cpp \
    'const char* name = counter_names_.insert(c.name).first->c_str();' 'const char* name = c.name.c_str();' \
    ringprof_system_tests 'SystemCountersInTheTrace.*'
# ---- system_stats: smdebug's statistics of the system metrics -------------------------------------
# Several phases no longer group runs: each step an interval of its own, a Between row after each.
mutation system_stats_phase_runs_not_grouped system_stats sdk/src/system_stats/training_phases.cpp \
    'if (f.phases.size() > 1 && !rows.empty() && rows.back().phase == e.metric) {' \
    'if (f.phases.size() > 2 && !rows.empty() && rows.back().phase == e.metric) {' \
    ringprof_system_tests 'UtilizationByPhase.*:TrainingPhaseIntervals.*'
# A Between interval starts at the previous interval's end (smdebug: end + 1).
mutation system_stats_between_starts_at_end system_stats sdk/src/system_stats/training_phases.cpp \
    'out.push_back({rows[i].end_us + 1, rows[i + 1].start_us - 1,' 'out.push_back({rows[i].end_us, rows[i + 1].start_us - 1,' \
    ringprof_system_tests 'UtilizationByPhase.*:TrainingPhaseIntervals.*'
# Initialization counted from the first sample instead of the first system file's minute (smdebug's origin).
mutation system_stats_job_initialization_from_first_sample system_stats sdk/src/system_stats/system_statistics.cpp \
    'j.initialization = step0->start_us;' 'j.initialization = step0->start_us - (lo - origin);' \
    ringprof_system_tests 'JobStatistics.*:JobCli.*'
# LowGPUUtilization judges all samples instead of the last 500 (smdebug's window).
mutation system_rules_low_gpu_whole_history system_stats sdk/src/system_stats/system_rules.cpp \
    'const std::vector<Sample> last(samples.end() - static_cast<std::ptrdiff_t>(kLowGpuWindow), samples.end());' \
    'const std::vector<Sample> last(samples.begin(), samples.end());' \
    ringprof_system_tests 'SystemRules.*'
# Snapshots two seconds wide instead of smdebug's 20 ms: several samples counted as one.
mutation system_rules_snapshot_window_wide system_stats sdk/src/system_stats/system_rules.cpp \
    'std::abs(current - row.timestamp) > kSnapshotWindowS)' 'std::abs(current - row.timestamp) > kSnapshotWindowS * 100)' \
    ringprof_system_tests 'SystemRules.*'
# StepOutlier triggers at ten outliers (smdebug: more than n_outliers = 10).
mutation system_rules_step_outliers_at_ten system_stats sdk/src/system_stats/system_rules.cpp \
    'if (f.steps.size() <= kStepOutliersAllowed) continue;' 'if (f.steps.size() < kStepOutliersAllowed) continue;' \
    ringprof_system_tests 'SystemRules.*'

# ---- CLI --------------------------------------------------------------------------------------
# --option=value passes "=value" on.
mutation cli_equals_value_keeps_sign cli tools/arguments.cpp \
    'value_ = arg.substr(equals + 1);' 'value_ = arg.substr(equals);' \
    "ringprof_cli_tests ringprof_cli" '*'
# "-" alone is taken for an option ("unknown option '-'") instead of an operand.
mutation cli_dash_alone_is_an_option cli tools/arguments.cpp \
    "if (arg.size() < 2 || arg[0] != '-') {" "if (arg.size() < 1 || arg[0] != '-') {" \
    "ringprof_cli_tests ringprof_cli" 'EveryCommand.*'
# ringprof stats --full-paths still strips directories.
mutation cli_full_paths_ignored cli tools/cmd_stats.cpp \
    'options.strip_dirs = false;' 'options.strip_dirs = true;' \
    "ringprof_stats_tests ringprof_cli" 'StatsCli.*'
# ringprof flame -o x.svg writes the HTML page.
mutation cli_flame_svg_by_extension cli tools/cmd_flame.cpp \
    'format = ends_with(output, ".svg")' 'format = ends_with(output, ".svgz")' \
    "ringprof_flame_tests ringprof_cli" 'Cli.*:CliForms*'
# The folder commands take a second PATH in place of the first instead of refusing it.
mutation cli_second_path_taken cli tools/path_command_line.cpp \
    'if (!path.empty())' 'if (false)' \
    "ringprof_cli_tests ringprof_cli" 'PathCommands.*'
# The folder commands list an option's choices without "or" before the last.
mutation cli_choices_listed_without_or cli tools/path_command_line.cpp \
    'i + 1 < names.size() ? ", " : " or "' '", "' \
    "ringprof_cli_tests ringprof_cli" 'PathCommands.*'
# ringprof steps --outlier-k takes a negative number.
mutation cli_outlier_k_negative cli tools/cmd_steps.cpp \
    '!std::isfinite(k) || k < 0)' '!std::isfinite(k) || k < -1)' \
    "ringprof_steps_tests ringprof_cli_tests ringprof_cli" 'StepsCli.*:Cli/EveryValueOption.*'

# ---- process: settings ------------------------------------------------------------------------
# A setting is refused at its documented minimum.
mutation setting_refused_at_minimum settings sdk/src/process/env_settings.cpp \
    'if (!valid || n < min || n > max) {' 'if (!valid || n <= min || n > max) {' \
    ringprof_life_tests 'SettingsBounds.*:Settings.*'
# A setting is refused at its documented maximum.
mutation setting_refused_at_maximum settings sdk/src/process/env_settings.cpp \
    'if (!valid || n < min || n > max) {' 'if (!valid || n < min || n >= max) {' \
    ringprof_life_tests 'SettingsBounds.*:Settings.*'
# RINGPROF_RING_BYTES's minimum differs from the one the README documents.
mutation setting_ring_bytes_minimum settings sdk/src/process/numeric_settings.hpp \
    '{"RINGPROF_RING_BYTES", 1024,' '{"RINGPROF_RING_BYTES", 2048,' \
    ringprof_life_tests 'SettingsBounds.*'
# RINGPROF_TIMELINE_MIN_NS is read but not applied.
mutation setting_timeline_min_ns_unused settings sdk/src/process/config.cpp \
    'c.timeline_min_ns = *v;' '(void)*v;' \
    "ringprof_life_tests ringprof_timeline_tests" 'SettingsBounds.*:Settings.*:TimelineFilters.*'

# ---- process: output files ---------------------------------------------------------------------
# A write a full disk cut short loses its remainder instead of keeping it for the next write.
mutation streamed_file_drops_remainder outputs sdk/src/process/streamed_file.cpp \
    'pending_.assign(data.substr(written));' 'pending_.clear();' \
    ringprof_life_tests 'FullDisk.*'
# ".." passes for a file name.
mutation dotdot_is_a_name outputs sdk/src/process/output_files.cpp \
    'if (name == "." || name == "..") return "it names a folder";' 'if (name == ".") return "it names a folder";' \
    ringprof_hostile_tests 'NamesStayNames.*'
# An exec'd image takes over the claim its earlier image left, and replaces that image's files.
mutation exec_image_takes_the_claim outputs sdk/src/process/run_claim.cpp \
    'if (h.pid == static_cast<long long>(self) && h.image != this_image()) {' 'if (false) {' \
    ringprof_life_tests 'ExecImage.*:SharedRunId.*'
# The claim file does not name its holder: an image exec'd after its session ended replaces its files.
mutation claim_names_no_holder outputs sdk/src/process/run_claim.cpp \
    'if (created || held.st_uid == ::geteuid()) {' 'if (false) {' \
    ringprof_life_tests 'ExecImage.*:SharedRunId.*'
# A later session of the same image reads the claim its earlier session left as an exec'd image's.
mutation later_session_taken_for_exec outputs sdk/src/process/run_claim.cpp \
    'h.image != this_image()' 'h.image != 0' \
    ringprof_life_tests 'ExecImage.*:SharedRunId.*'

# ---- the Python module ------------------------------------------------------------------------
# reset_timers() keeps the worker trees merged before it: they come back in the next tree.
mutation py_reset_keeps_merged_workers python python/ringprof/mlagents.py \
    '        _threads.clear()' '        pass' \
    python 'reset_timers_forgets_the_worker_trees'
# merge_gauges() replaces a gauge's count instead of adding the other thread's (ML-Agents sums).
mutation py_merge_gauges_keeps_one_count python python/ringprof/mlagents.py \
    '        self.count += other.count' '        self.count = max(self.count, other.count)' \
    python 'threaded_trainer'
# The merges not yet grafted are left out of the files written at exit.
mutation py_pending_merges_lost_at_exit python python/ringprof/mlagents.py \
    '_atexit.register(_graft_pending)' 'pass' \
    python 'never_read_back'
# An infinite gauge is dropped, as NaN is (ML-Agents counts it, value and max inf).
mutation py_infinite_gauge_dropped python python/ringprof/mlagents.py \
    '    if _math.isnan(value):' '    if not _math.isfinite(value):' \
    python 'infinite_gauge'
# A thread's root merged by the trainer is grafted into the engine, which holds it already.
mutation py_thread_root_grafted_twice python python/ringprof/mlagents.py \
    '                if not recorded_here:' '                if True:' \
    python 'threaded_trainer'
# The pstats key leaves out a C++ function's signature: two signatures become one entry.
mutation py_pstats_key_without_cpp_signature python python/ringprof/_profile.py \
    'labels = [(r["file"], r["line"], r["name"] + r["signature"]) for r in rows]' \
    'labels = [(r["file"], r["line"], r["name"]) for r in rows]' \
    python 'cpp_extension_function_has_one_row_and_key'
# A profile hook removed under running calls: its calls are never closed, later scopes nest below.
mutation py_removed_hook_calls_left_open python python/src/profile_hook.cpp \
    'if (state.hook_frames == 0 || PyThreadState_Get()->c_profilefunc == profile_hook) return;' 'return;' \
    python 'hook_removed'
# asyncio: a scope is matched by name alone, so a task closes the other task's scope.
mutation py_scope_matched_by_name_alone python python/src/scope_types.cpp \
    'if (frames[k].owner == owner && (closed_in == nullptr || frames[k].opened_in == closed_in)) return k;' 'if (frames[k].owner == owner) return k;' \
    python 'asyncio'
# AdoptContext records nothing: an adopting thread's scopes stay at its own root.
mutation py_adopt_context_ignored python python/src/scope_types.cpp \
    'const Closing closing = id != 0 ? detail::open_record(&record, 1) : detail::kNotRecording;' \
    'const Closing closing = detail::kNotRecording;' \
    python 'adopt_a_captured_context'
# Profile(builtins=False) still records built-in calls.
mutation py_builtins_setting_ignored python python/src/profile_hook.cpp \
    'if (state->hook_active && state->hook_builtins && (state->hidden_frame' 'if (state->hook_active && (state->hidden_frame' \
    python 'every_builtins_setting'
# getstats() reports no recursive calls (accelerate's reccallcount).
mutation py_getstats_reccallcount python python/ringprof/_profile.py \
    'entries.append(ProfilerEntry(code, c["ncalls"], c["ncalls"] - c["primitive_calls"],' \
    'entries.append(ProfilerEntry(code, c["ncalls"], 0,' \
    python 'getstats'
# Enabling a second Profile leaves the first one's window open: it counts the second's calls.
mutation py_profile_windows_overlap python python/src/profile_hook.cpp \
    'if (PythonProfile* other = profile_of(state->recording_profile)) other->close_window(thread_id(*state));' ';' \
    python 'exactly_the_calls'
# A Profile's window reads another thread's rows: Profiles on two threads count each other's calls.
mutation py_profile_window_of_any_thread python sdk/src/drain/drainer.cpp \
    'if (track->tid == tid && !track->ring->retired()) return aggregator_.thread_stats(*track);' \
    'if (!track->ring->retired()) return aggregator_.thread_stats(*track);' \
    python 'threads_it_was_enabled_on'
# A thread that ends with a Profile enabled: its window is never closed, its calls are lost.
mutation py_profile_thread_end_unwatched python python/ringprof/_profile.py \
    '        _thread_end.sentinel = _ThreadEnd()' '        pass' \
    python 'threads_it_was_enabled_on'
# disable() drops the program's own profile hook instead of putting it back.
mutation py_profile_drops_programs_hook python python/src/profile_hook.cpp \
    'PyEval_SetProfile(previous.func, previous.obj);' 'PyEval_SetProfile(nullptr, nullptr);' \
    python 'hook_is_put_back'
# plot() shows the page in a notebook through an iframe (IPython warns about it).
mutation py_plot_in_an_iframe python python/ringprof/_profile.py \
    '    display(HTML(fragment))' '    display(HTML("<iframe>" + fragment))' \
    python 'plot_in_a_notebook'
# A custom_timer is ignored: the table is timed by the engine's clock.
mutation py_custom_timer_ignored python python/ringprof/_profile.py \
    '        if custom_timer is not None:' '        if False:' \
    python 'custom_timer'
# Two code objects on one line (two lambdas) share one row again.
mutation py_code_objects_of_one_label_merged python python/src/profile_hook.cpp \
    '    return static_cast<std::uint32_t>(codes.size() - 1);' '    return 0;' \
    python 'sharing_one_file_line'
# getstats() gives a leaf an empty list of calls (cProfile: None).
mutation py_getstats_leaf_calls_empty python python/ringprof/_profile.py \
    'if self._subcalls and r["callees"]:' 'if self._subcalls:' \
    python 'getstats_gives_cprofiles'
# getstats() gives a Python function's row its name, not its code object.
mutation py_getstats_code_is_a_name python python/ringprof/_profile.py \
    '        return code, name[len(code.co_name):]' '        return name, ""' \
    python 'getstats'
# An unknown sort key raises ValueError (cProfile: KeyError).
mutation py_sort_key_valueerror python python/ringprof/_profile.py \
    '            raise KeyError("ringprof.Profile: unknown sort key' '            raise ValueError("ringprof.Profile: unknown sort key' \
    python 'unknown_sort_key'
# .stats (what pstats reads) swaps primitive and total calls.
mutation py_pstats_calls_swapped python python/ringprof/_profile.py \
    'entry = (c["primitive_calls"], c["ncalls"], c["tottime"], c["cumtime"])' \
    'entry = (c["ncalls"], c["primitive_calls"], c["tottime"], c["cumtime"])' \
    python 'pstats or cprofile_layout'

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
list=0 sample=0 selected=()
while [ $# -gt 0 ]; do
    case $1 in
        --list) list=1 ;;
        --sample) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; sample=$2; shift ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) printf '%s\n' "${ids[@]}" | grep -qxF -- "$1" || { echo "mutate: no mutation named '$1' (see --list)" >&2; exit 2; }
           selected+=("$1") ;;
    esac
    shift
done
if [ $list -eq 1 ]; then
    for i in "${!ids[@]}"; do printf '%-34s %-10s %s\n' "${ids[$i]}" "${areas[$i]}" "${files[$i]}"; done
    exit 0
fi
if [ "$sample" -gt 0 ]; then
    # Evenly spaced over the list (so over the areas), starting where the commit says.
    seed=${RINGPROF_MUTATE_SEED:-$(git -C "$here" rev-parse HEAD 2>/dev/null || echo "not a git checkout")}
    start=$(( 0x$(printf '%s' "$seed" | sha256sum | cut -c1-7) % ${#ids[@]} ))
    [ "$sample" -gt ${#ids[@]} ] && sample=${#ids[@]}
    for ((j = 0; j < sample; j++)); do selected+=("${ids[$(( (start + j * ${#ids[@]} / sample) % ${#ids[@]} ))]}"); done
    echo "== sample of $sample from ${#ids[@]} mutations (seed ${seed:0:12}): ${selected[*]}"
fi
is_selected() {
    [ ${#selected[@]} -eq 0 ] && return 0
    local s
    for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done
    return 1
}
chosen=()
for i in "${!ids[@]}"; do is_selected "${ids[$i]}" && chosen+=("$i"); done

if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "== configuring $build (preset release)"
    cmake -S "$here" --preset release -B "$build" >/dev/null
fi
grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$here" "$build/CMakeCache.txt" ||
    { echo "mutate: $build is the build of another source tree" >&2; exit 2; }
mkdir -p "$log_dir"
# The interpreter the module was built for (the release preset's /usr/bin/python3).
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
# Where `cmake --install` puts the Python package, relative to the prefix.
python_site=$(sed -n 's/^RINGPROF_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")

# The file being mutated and its saved copy: put back on any exit, interrupt included.
planted="" saved="$log_dir/original"
put_back() {
    if [ -n "$planted" ]; then
        cat "$saved" >"$planted"  # a new time: make rebuilds the original over the mutant's objects
        planted=""
    fi
}
trap put_back EXIT
trap 'put_back; exit 130' INT TERM

build_targets() {  # targets... ; quiet unless it fails
    local t wanted=()
    # The Python tests run against an installation, which holds the tool too.
    for t in "$@"; do [ "$t" = python ] && wanted+=(ringprof_python ringprof_cli) || wanted+=("$t"); done
    cmake --build "$build" -j "$jobs" --target "${wanted[@]}" >"$log_dir/build.log" 2>&1 || return 1
}

run_tests() {  # targets filter -> 0 all passed
    local t
    for t in $1; do
        case $t in
            ringprof_cli) continue ;;
            python)  # as the ctest 'python' runs them: against the build installed in a scratch prefix
                timeout "$deadline" cmake -DBUILD_DIR="$build" -DWORK_DIR="$log_dir/python_check" \
                    -DPYTHON="${python:-python3}" -DSITE_DIR="$python_site" -DTESTS_DIR="$here/tests/python" \
                    "-DPYTEST_ARGS=-x;-k;$2" -P "$here/tests/python/run_pytest.cmake" >"$log_dir/test.log" 2>&1 ||
                    return 1 ;;
            *)
                { (cd "$log_dir" && timeout "$deadline" "$build/tests/$t" --gtest_filter="$2") \
                    >"$log_dir/test.log" 2>&1; } 2>/dev/null || return 1 ;;
        esac
    done
}

first_failure() {
    grep -m1 -oE '\[  FAILED  \] [^ ]+|^(FAILED|ERROR) [^ ]+' "$log_dir/test.log" | sed 's/\[  FAILED  \] //; s/^[A-Z]* .*:://' ||
        echo 'timeout or crash'
}

started=$SECONDS
# The unmutated build must pass what each mutation runs, or "caught" would mean nothing.
all_targets=$(for i in "${chosen[@]}"; do echo "${targets[$i]}"; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "== building the unmutated test programs in $build: $all_targets"
build_targets $all_targets || { cat "$log_dir/build.log" >&2; echo "mutate: the unmutated tree does not build" >&2; exit 2; }
declare -A baseline_done
for i in "${chosen[@]}"; do
    [ -n "${baseline_done["${targets[$i]}|${filters[$i]}"]:-}" ] && continue
    baseline_done["${targets[$i]}|${filters[$i]}"]=1
    if ! run_tests "${targets[$i]}" "${filters[$i]}"; then
        cat "$log_dir/test.log" >&2
        echo "mutate: unmutated tests fail (${targets[$i]} ${filters[$i]}): fix them first" >&2
        exit 2
    fi
done

declare -A area_caught area_total
caught=0 survived=0 stale=0
for i in "${chosen[@]}"; do
    id=${ids[$i]} area=${areas[$i]} file="$here/${files[$i]}"
    area_total[$area]=$(( ${area_total[$area]:-0} + 1 ))
    occurrences=0
    [ -f "$file" ] && occurrences=$(grep -cF -- "${originals[$i]}" "$file" || true)
    if [ "$occurrences" -eq 0 ]; then
        printf '%-34s stale (original text no longer in %s, or the file is gone)\n' "$id" "${files[$i]}"
        stale=$((stale + 1))
        continue
    fi
    t0=$SECONDS
    cp "$file" "$saved"
    planted=$file
    ORIGINAL=${originals[$i]} REPLACEMENT=${replacements[$i]} \
        perl -0777 -i -pe 'BEGIN { $o = $ENV{ORIGINAL}; $r = $ENV{REPLACEMENT} } s/\Q$o\E/$r/g' "$file"
    if ! build_targets ${targets[$i]}; then
        verdict="caught (does not compile)"
    elif run_tests "${targets[$i]}" "${filters[$i]}"; then
        verdict="SURVIVED"
    else
        verdict="caught ($(first_failure))"
    fi
    put_back
    case $verdict in
        caught*) caught=$((caught + 1)); area_caught[$area]=$(( ${area_caught[$area]:-0} + 1 )) ;;
        *) survived=$((survived + 1)) ;;
    esac
    printf '%-34s %-10s %s  [%s s]\n' "$id" "$area" "$verdict" "$((SECONDS - t0))"
done

# Back to the unmutated programs, so the build is what a normal build leaves.
echo "== rebuilding the unmutated test programs"
build_targets $all_targets || { cat "$log_dir/build.log" >&2; echo "mutate: the unmutated tree does not rebuild" >&2; exit 2; }
for area in $(printf '%s\n' "${!area_total[@]}" | sort); do
    printf '   %-10s %s of %s caught\n' "$area" "${area_caught[$area]:-0}" "${area_total[$area]}"
done
echo "== mutations: $caught caught, $survived survived, $stale stale ($((SECONDS - started)) s)"
[ $survived -eq 0 ] && [ $stale -eq 0 ]
