#!/usr/bin/env bash
# `ringprof merge` against smdebug's own MergedTimeline on the same generated input (bench_merge's
# scaled reference run, about 32 MB), in wall time, with the answers compared by parsing both back.
# Prints both times, the ratio and the machine's load before and after (absolute times mean
# nothing on a shared machine; the ratio measured in one run does).
# Usage: SMDEBUG_SRC=<smdebug checkout> bench/merge_vs_smdebug.sh BUILD_DIR [WORK_DIR]
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
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done

python3 "$here/compare_merged.py" "$work/ringprof_out"/*_merged_timeline.json "$work/smdebug_out"/*_merged_timeline.json
printf 'smdebug MergedTimeline.merge_timeline: %.3f s wall\n' "$smdebug_s"
printf 'ringprof merge (whole process, best of 5): %.3f s wall\n' "$best"
printf 'ratio: %.1fx\n' "$(echo "$smdebug_s / $best" | bc -l)"
echo "load after: $(uptime)"
