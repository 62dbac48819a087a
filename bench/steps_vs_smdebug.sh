#!/usr/bin/env bash
# `ringprof steps` against smdebug's own step statistics (PandasFrameAnalysis.get_step_statistics)
# on the same generated input (make_steps_input.py: about 32 MB, 4 processes on 2 hosts, 1600
# steps), in wall time, with the answers compared by parsing both back. smdebug computes the three
# groupings (training_phase, process, framework_metric) in one pass; ringprof is timed as three
# whole `ringprof steps --by ...` processes, one per grouping, added up. Absolute times mean nothing
# on a shared machine, so each round times smdebug once and ringprof's three runs 5 times (the
# best sum counts) and gives its own ratio; the script prints every round and the median ratio.
# Usage: SMDEBUG_SRC=<smdebug checkout> [ROUNDS=n] bench/steps_vs_smdebug.sh BUILD_DIR [WORK_DIR]
# (smdebug needs Debian's python3-pandas, python3-psutil and python3-boto3.)
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
: "${SMDEBUG_SRC:?set SMDEBUG_SRC to a checkout of the sagemaker-debugger source}"
groupings="training_phase process framework_metric"

echo "load before: $(uptime)"
[ -d "$work/input/framework" ] || python3 "$here/make_steps_input.py" "$work/input"
echo "input: $(du -smL "$work/input" | cut -f1) MB"

rounds=${ROUNDS:-2}
ratios=()
for round in $(seq "$rounds"); do
    rm -rf "$work/smdebug_out"
    smdebug_s=$(SMDEBUG_SRC="$SMDEBUG_SRC" PYTHONHASHSEED=0 /usr/bin/python3 "$here/smdebug_steps_timed.py" \
                "$work/input" "$work/smdebug_out" 2>/dev/null | grep ' s wall' | cut -d' ' -f1)
    best=
    for _ in 1 2 3 4 5; do
        mkdir -p "$work/ringprof_out"
        start=$(date +%s.%N)
        for by in $groupings; do
            "$build/tools/ringprof" steps "$work/input" --by "$by" --format csv >"$work/ringprof_out/$by.csv"
        done
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    ratio=$(echo "$smdebug_s / $best" | bc -l)
    ratios+=("$ratio")
    printf 'round %d: smdebug get_step_statistics (3 groupings, one pass) %.3f s, ringprof steps (3 processes, best of 5) %.3f s: %.1fx\n' \
        "$round" "$smdebug_s" "$best" "$ratio"
done

python3 - "$work/ringprof_out" "$work/smdebug_out" $groupings <<'PY'
import csv, math, sys
ours, theirs, groupings = sys.argv[1], sys.argv[2], sys.argv[3:]
for by in groupings:
    a = list(csv.reader(open(f"{ours}/{by}.csv")))
    b = list(csv.reader(open(f"{theirs}/{by}.csv")))
    assert a[0] == b[0], (by, a[0], b[0])
    assert [r[0] for r in a] == [r[0] for r in b], by
    for ra, rb in zip(a[1:], b[1:]):
        for x, y in zip(ra[1:], rb[1:]):
            assert math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-9), (by, ra, rb)
    print(f"{by}: {len(a) - 1} groups, same numbers as smdebug")
PY
python3 -c "import statistics, sys; r = [float(x) for x in sys.argv[1:]]; print(f'ratio: median {statistics.median(r):.1f}x (range {min(r):.1f}x-{max(r):.1f}x)')" "${ratios[@]}"
echo "load after: $(uptime)"
