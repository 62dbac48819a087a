#!/usr/bin/env bash
# The "many cores" table in one go, for a machine with more cores than CI's: per-scope cost
# against a bare rdtsc pair, waits, drops and the drain's events per drainer CPU-second at 1, 2,
# 4 ... all cores (bench_scaling, best of 5 repetitions), with the drain split as the cores allow
# (RINGPROF_DRAINERS=0, the default) and with one drainer (RINGPROF_DRAINERS=1); the tail of one scope at 1 thread and at
# 2x and 4x the cores (bench_scope_tail); a thread's first scope and a process's very first scope;
# a producer's own growth beside the drainer's preparation (bench_growth). A few minutes at most.
#
#   bench/many_cores.sh [release build folder, default build/release]
#
# Run it on an otherwise idle machine; it writes the raw JSON beside the table in $OUT (default
# a temporary folder) and prints the table as Markdown.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
out="${OUT:-$(mktemp -d /tmp/ringprof_many_cores.XXXXXX)}"
mkdir -p "$out"
for b in bench_scaling bench_scope_tail bench_growth; do
    if [[ ! -x "$build/bench/$b" ]]; then
        echo "many_cores.sh: $build/bench/$b is missing; build it first:" >&2
        echo "  cmake --preset release -B build/release && cmake --build build/release --target $b" >&2
        exit 2
    fi
done
cd "$out"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load: $(cut -d' ' -f1-3 /proc/loadavg)"
RINGPROF_DRAINERS=0 timeout 600 "$build/bench/bench_scaling" --benchmark_repetitions=5 --benchmark_format=json \
    --benchmark_out="$out/scaling.json" --benchmark_out_format=json >/dev/null
RINGPROF_DRAINERS=1 timeout 600 "$build/bench/bench_scaling" --benchmark_repetitions=5 --benchmark_format=json \
    --benchmark_out="$out/scaling_one_drainer.json" --benchmark_out_format=json >/dev/null
timeout 600 "$build/bench/bench_scope_tail" --benchmark_format=json \
    --benchmark_out="$out/tail.json" --benchmark_out_format=json >/dev/null
timeout 600 "$build/bench/bench_growth" --benchmark_format=json \
    --benchmark_out="$out/growth.json" --benchmark_out_format=json >/dev/null

python3 - "$out" <<'EOF'
import json, sys
from collections import defaultdict
out = sys.argv[1]
def runs(name):
    with open(f"{out}/{name}.json") as f:
        return [b for b in json.load(f)["benchmarks"] if b.get("run_type") == "iteration"]

for label, name in (("drainers as the cores allow (default)", "scaling"), ("one drainer", "scaling_one_drainer")):
    by_threads = defaultdict(list)
    for b in runs(name):
        by_threads[int(b["threads"])].append(b)
    print(f"\n{label}:\n")
    print("| threads | PROF_SCOPE / bare pair (median of paired batches, best of 5 repetitions) | waits | time waited | drops | counts exact | drain threads (started so far) | events per drainer CPU-s |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sorted(by_threads):
        reps = by_threads[n]
        best = min(r["scope_vs_bare_pair"] for r in reps)
        eps = sorted(r["events_per_drainer_cpu_s"] for r in reps)[len(reps) // 2]
        print(f"| {n} | {best:.2f}x | {sum(r['waits'] for r in reps):.0f} | {sum(r['wait_ms'] for r in reps):.1f} ms"
              f" | {sum(r['dropped'] for r in reps):.0f} | {'yes' if all(r['counts_exact'] == 1 for r in reps) else 'NO'}"
              f" | {max(r['drain_threads'] for r in reps):.0f} | {eps / 1e6:.0f} M |")

print("\n| tail, threads | p99 / bare | p99.9 / bare | p99.99 / bare | worst / bare | p99.99 | worst | waits | drops | growths (mean) |")
print("|---|---|---|---|---|---|---|---|---|---|")
first = []
for b in runs("tail"):
    name = b["name"]
    if name.startswith("BM_ScopeTailWhilePoolStarts/"):
        n = name.split("/")[1]
        print(f"| {n} | {b['p99_vs_bare']:.2f}x | {b['p999_vs_bare']:.2f}x | {b['p9999_vs_bare']:.2f}x | {b['worst_vs_bare']:.1f}x"
              f" | {b['scope_p9999_us']:.2f} us | {b['scope_worst_us']:.0f} us | {b['waits']:.0f} | {b['dropped']:.0f}"
              f" | {b['producer_growths']:.0f} ({b['growth_mean_us']:.1f} us) |")
    else:
        first.append(b)
print("\n| first scope | median | worst | over 200 us | samples |")
print("|---|---|---|---|---|")
for b in first:
    what = "a new thread's (session running)" if "Thread" in b["name"] else "the process's (starts the session)"
    print(f"| {what} | {b['first_scope_median_us']:.0f} us | {b['first_scope_worst_us']:.0f} us"
          f" | {b['over_bound']:.0f} | {b['samples']:.0f} |")
print("\n| a producer's own 4 MiB mapping, beside | p50 | p99 | worst | p99 / idle |")
print("|---|---|---|---|---|")
labels = {"0": "an idle thread", "1": "the drainer preparing segments (ringprof)", "2": "a MAP_POPULATE loop (before)"}
for b in runs("growth"):
    arg = b["name"].split("/")[1]
    print(f"| {labels.get(arg, arg)} | {b['map_p50_us']:.1f} us | {b['map_p99_us']:.1f} us | {b['map_worst_us']:.0f} us"
          f" | {b.get('p99_vs_idle', 1.0):.1f}x |")
EOF
echo
echo "raw results: $out"
