#!/usr/bin/env bash
# `ringprof merge` against smdebug's own MergedTimeline on the same generated input (bench_merge's
# scaled reference run, about 32 MB), in wall time, with the answers compared by parsing both back.
# Absolute times mean nothing on a shared machine, and one smdebug run moves by half between
# minutes here, so the two are timed in rounds (ROUNDS, default 3: smdebug once, then ringprof 5
# times) and each round gives its own ratio (that round's smdebug over its best ringprof); the
# script prints every round, the median ratio and the ratio of the medians, and the load.
# Usage: SMDEBUG_SRC=<smdebug checkout> [ROUNDS=n] bench/merge_vs_smdebug.sh BUILD_DIR [WORK_DIR]
# (smdebug needs Debian's python3-pandas, python3-psutil and python3-boto3.)
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
: "${SMDEBUG_SRC:?set SMDEBUG_SRC to a checkout of the sagemaker-debugger source}"

echo "load before: $(uptime)"
if [ ! -d "$work/input/framework" ]; then
    # bench_merge writes its input there and keeps it; one iteration is enough to make it.
    RINGPROF_BENCH_MERGE_DIR="$work/input" "$build/bench/bench_merge" >/dev/null
fi
echo "input: $(du -smL "$work/input" | cut -f1) MB"

rounds=${ROUNDS:-3}
smdebug_times=() best_times=() all_times=()
for round in $(seq "$rounds"); do
    rm -rf "$work/smdebug_out"
    smdebug_s=$(PYTHONHASHSEED=0 /usr/bin/python3 "$here/smdebug_merge_timed.py" "$work/input" "$work/smdebug_out" 2>/dev/null |
                grep ' s wall ' | cut -d' ' -f1)
    best=
    for _ in 1 2 3 4 5; do
        rm -rf "$work/ringprof_out"
        start=$(date +%s.%N)
        "$build/tools/ringprof" merge "$work/input" -o "$work/ringprof_out" >/dev/null 2>&1
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        all_times+=("$t")
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    smdebug_times+=("$smdebug_s") best_times+=("$best")
    printf 'round %d: smdebug MergedTimeline.merge_timeline %.3f s, ringprof merge (whole process, best of 5) %.3f s: %.1fx\n' \
        "$round" "$smdebug_s" "$best" "$(echo "$smdebug_s / $best" | bc -l)"
done

python3 "$here/compare_merged.py" "$work/ringprof_out"/*_merged_timeline.json "$work/smdebug_out"/*_merged_timeline.json
python3 - "${smdebug_times[*]}" "${best_times[*]}" "${all_times[*]}" <<'PY'
import statistics, sys
smdebug, best, every = ([float(x) for x in a.split()] for a in sys.argv[1:4])
ratios = [s / b for s, b in zip(smdebug, best)]
print(f"smdebug median {statistics.median(smdebug):.3f} s; ringprof median {statistics.median(every):.3f} s, "
      f"best {min(every):.3f} s (of {len(every)})")
print(f"ratio: median of the rounds {statistics.median(ratios):.1f}x (range {min(ratios):.1f}x-{max(ratios):.1f}x); "
      f"median over median {statistics.median(smdebug) / statistics.median(every):.1f}x")
PY
echo "load after: $(uptime)"
