#!/usr/bin/env bash
# Plants known bugs in the core, one at a time, and checks that the tests catch each one. Run it
# before a release (it is not part of CI: every mutation rebuilds a test program).
#
#   scripts/mutate.sh            every mutation
#   scripts/mutate.sh ID...      only these (IDs as listed below)
#   scripts/mutate.sh --list     the list
#
# Each mutation is applied to a scratch copy of the tree ($RINGPROF_MUTATE_DIR, default
# /tmp/ringprof-mutate; never the working tree), the test programs it affects are rebuilt
# (ccache makes the unchanged files free) and run, and the file is restored. A mutation is
# "caught" when a test fails, "SURVIVED" when all pass, and "stale" when its original text is no
# longer in the file (the code moved on: update the mutation). Exit code: 0 every mutation was
# caught; 1 one survived or is stale; 2 the unmutated tests do not pass (nothing can be judged).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${RINGPROF_MUTATE_DIR:-/tmp/ringprof-mutate}
jobs=${RINGPROF_JOBS:-2}
deadline=${RINGPROF_MUTATE_TEST_SECONDS:-600}

ids=() files=() originals=() replacements=() targets=() filters=()
# mutation ID FILE ORIGINAL REPLACEMENT "TARGETS" GTEST_FILTER
# ORIGINAL is exact text (every occurrence in FILE is replaced); TARGETS are the test programs
# (ringprof_<area>_tests) that must catch it.
mutation() {
    ids+=("$1") files+=("$2") originals+=("$3") replacements+=("$4") targets+=("$5") filters+=("$6")
}

# Ring admission: fits() admits one event more than the ring holds.
mutation ring_fits_off_by_one sdk/src/engine/ring_room.cpp \
    'if (fill > cap) {' 'if (fill > cap + 1) {' \
    ringprof_core_tests 'Ring.*:RingAdmission.*:DropAccounting.*:Session.*'
# Parallel rule: parallel from 3 threads instead of 2.
mutation parallel_at_three_threads sdk/src/engine/agg_node.cpp \
    'n.is_parallel = parallel || threads >= 2;' 'n.is_parallel = parallel || threads >= 3;' \
    ringprof_timers_tests 'ParallelRuleEdge.*'
# Parallel rule: a merged worker tree is not marked parallel.
mutation merged_worker_not_parallel sdk/src/engine/agg_node.cpp \
    'parallel = parallel || parallel_flag || other.is_parallel;' 'parallel = parallel || other.is_parallel;' \
    ringprof_timers_tests 'ParallelRuleEdge.*:MlAgentsScenario.*'
# Parallel rule: merge-timers does not mark merged files parallel.
mutation merge_timers_not_parallel sdk/src/timers/timer_tree.cpp \
    'is_parallel = is_parallel || parallel || other.is_parallel;' 'is_parallel = is_parallel || other.is_parallel;' \
    "ringprof_timers_tests ringprof_cli" 'MergeTimersCli.*'
# Self time: not clamped at zero under parallel children.
mutation self_not_clamped sdk/src/timers/timer_tree.cpp \
    'return std::max(0.0, total - children_total);' 'return total - children_total;' \
    ringprof_timers_tests 'SelfTime.*'
# Total: a node keeps only its last call's time.
mutation total_keeps_last_call sdk/src/engine/call_tree.hpp \
    'n.total_ticks += ticks;' 'n.total_ticks = ticks;' \
    ringprof_timers_tests 'MarkerCost.*:ClockConversion.*'
# Count: a thread's node counts one call however many ran.
mutation count_stuck_at_one sdk/src/engine/call_tree.hpp \
    '++n.count;' 'n.count = 1;' \
    ringprof_timers_tests 'MlAgentsScenario.*:ParallelRuleEdge.*'
# Count: the process tree keeps only the last thread's calls.
mutation count_of_last_thread sdk/src/engine/agg_node.cpp \
    'count += calls;' 'count = calls;' \
    ringprof_timers_tests 'ParallelRuleEdge.*'
# Drop accounting: a refused scope is not counted.
mutation refusal_not_counted sdk/include/ringprof/detail/ring.hpp \
    'dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);' \
    'dropped_.store(dropped_.load(std::memory_order_relaxed), std::memory_order_relaxed);' \
    ringprof_core_tests 'DropAccounting.*:Session.*'
# Drop accounting: drops of exited threads are forgotten.
mutation exited_thread_drops_forgotten sdk/src/engine/drainer.cpp \
    'retired_dropped_ += track.dropped();' '(void)track.dropped();' \
    ringprof_core_tests 'DropAccounting.*'
# Drop accounting: drops of live threads are left out of the total.
mutation live_thread_drops_left_out sdk/src/engine/drainer.cpp \
    'snapshot.dropped += t.dropped;' \
    '(void)t.dropped;' \
    ringprof_core_tests 'DropAccounting.*:Session.*'
# Timeline backpressure: a range writes all its spans however little room the writer's queue has.
mutation range_ignores_queue_room sdk/src/engine/drainer.cpp \
    'const std::uint64_t split = head - tail <= fits ? head : tail + fits;' 'const std::uint64_t split = head;' \
    ringprof_timeline_tests 'TimelineWriter.*'
# Clock conversion: ticks divided by the rate instead of multiplied.
mutation ticks_divided_by_rate sdk/src/engine/clock_calibration.hpp \
    'return static_cast<double>(ticks) * ns_per_tick();' 'return static_cast<double>(ticks) / ns_per_tick();' \
    ringprof_timers_tests 'ClockConversion.*'
# Clock conversion: the calibrated rate is off by a factor of two.
mutation rate_halved sdk/src/engine/clock_calibration.cpp \
    'static_cast<double>(now.mono_ns - start_mono_ns_) /' '0.5 * static_cast<double>(now.mono_ns - start_mono_ns_) /' \
    ringprof_timers_tests 'ClockConversion.*'
# Clock conversion: timeline offsets use a rate of 1 ns per tick.
mutation offsets_ignore_rate sdk/src/engine/clock_calibration.cpp \
    'std::llround(static_cast<double>(dt) * s.ns_per_tick);' 'std::llround(static_cast<double>(dt));' \
    ringprof_timers_tests 'ClockConversion.*'

if [ "${1:-}" = "--list" ]; then
    for i in "${!ids[@]}"; do printf '%-32s %s\n' "${ids[$i]}" "${files[$i]}"; done
    exit 0
fi
selected=("$@")
is_selected() {
    [ ${#selected[@]} -eq 0 ] && return 0
    local s
    for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done
    return 1
}
for s in "${selected[@]}"; do
    printf '%s\n' "${ids[@]}" | grep -qxF -- "$s" || { echo "mutate: no mutation named '$s' (see --list)" >&2; exit 2; }
done

# The scratch tree mirrors the worktree's depth (…/tree/build/mutate) so ccache, with paths made
# relative, finds the objects of a normal build.
tree="$scratch/tree"
build="$tree/build/mutate"
stage="$scratch/stage"
rm -rf "$stage"
mkdir -p "$tree" "$stage"
(cd "$here" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | (cd "$stage" && tar -xf -)
# Only files that differ are copied (with a new time), so make rebuilds only what changed; the
# files mutations touch are always touched, so no object built from a mutant survives a run that
# was interrupted, or restored a file to an older time.
(cd "$stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
    cmp -s "$stage/$f" "$tree/$f" || { mkdir -p "$(dirname "$tree/$f")" && cp "$stage/$f" "$tree/$f"; }
done
for f in "${files[@]}"; do [ -f "$tree/$f" ] && touch "$tree/$f"; done
export CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGPROF_BUILD_TESTS=ON -DRINGPROF_BUILD_TOOLS=ON -DRINGPROF_BUILD_BENCH=OFF \
    -DRINGPROF_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null

build_targets() {  # targets... ; quiet unless it fails
    local log="$scratch/build.log"
    if ! cmake --build "$build" -j "$jobs" --target "$@" >"$log" 2>&1; then
        return 1
    fi
}

run_tests() {  # targets filter -> 0 all passed
    local t status=0
    for t in $1; do
        [ "$t" = ringprof_cli ] && continue
        timeout "$deadline" "$build/tests/$t" --gtest_filter="$2" >"$scratch/test.log" 2>&1 || status=1
        [ $status -ne 0 ] && break
    done
    return $status
}

# The unmutated tree must pass what each mutation runs, or "caught" would mean nothing.
all_targets=$(printf '%s\n' "${targets[@]}" | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "== building the unmutated test programs in $build"
build_targets $all_targets || { cat "$scratch/build.log" >&2; echo "mutate: the unmutated tree does not build" >&2; exit 2; }
for i in "${!ids[@]}"; do
    is_selected "${ids[$i]}" || continue
    if ! run_tests "${targets[$i]}" "${filters[$i]}"; then
        cat "$scratch/test.log" >&2
        echo "mutate: unmutated tests fail (${targets[$i]} ${filters[$i]}): fix them first" >&2
        exit 2
    fi
done

caught=0 survived=0 stale=0
for i in "${!ids[@]}"; do
    is_selected "${ids[$i]}" || continue
    id=${ids[$i]} file="$tree/${files[$i]}"
    occurrences=0
    [ -f "$file" ] && occurrences=$(grep -cF -- "${originals[$i]}" "$file" || true)
    if [ "$occurrences" -eq 0 ]; then
        printf '%-32s stale (original text no longer in %s, or the file is gone)\n' "$id" "${files[$i]}"
        stale=$((stale + 1))
        continue
    fi
    cp "$file" "$scratch/original"
    ORIGINAL=${originals[$i]} REPLACEMENT=${replacements[$i]} \
        perl -0777 -i -pe 'BEGIN { $o = $ENV{ORIGINAL}; $r = $ENV{REPLACEMENT} } s/\Q$o\E/$r/g' "$file"
    if ! build_targets ${targets[$i]}; then
        verdict="caught (does not compile)"
    elif run_tests "${targets[$i]}" "${filters[$i]}"; then
        verdict="SURVIVED"
    else
        verdict="caught ($(grep -m1 -oE '\[  FAILED  \] [^ ]+' "$scratch/test.log" | sed 's/\[  FAILED  \] //' || echo 'timeout or crash'))"
    fi
    cat "$scratch/original" >"$file"  # new mtime: the next build recompiles the original (ccache hits)
    case $verdict in
        caught*) caught=$((caught + 1)) ;;
        *) survived=$((survived + 1)) ;;
    esac
    printf '%-32s %s  [%s: %s x%s]\n' "$id" "$verdict" "${files[$i]}" "${originals[$i]}" "$occurrences"
done
echo "== mutations: $caught caught, $survived survived, $stale stale"
[ $survived -eq 0 ] && [ $stale -eq 0 ]
