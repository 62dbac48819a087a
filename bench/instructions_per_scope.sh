#!/bin/sh
# Instructions a recorded empty PROF_SCOPE executes on its thread, counted by callgrind: the
# marginal count between 10,000 and 20,000 scopes of bench/scope_loop (loop overhead included).
# Exact and free of machine noise, unlike the time ratio. Fails above MAX (default 50).
# usage: bench/instructions_per_scope.sh <build dir with bench/scope_loop> [MAX]
set -eu
build=${1:?usage: $0 <build dir> [max]}
max=${2:-50}
loop="$build/bench/scope_loop"
[ -x "$loop" ] || { echo "instructions_per_scope: $loop not built (target scope_loop)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions_per_scope: valgrind is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count() {
    valgrind --tool=callgrind --toggle-collect='run_scopes*' --callgrind-out-file="$work/cg.$1" \
        "$loop" "$1" "$work/out.$1" >"$work/log.$1" 2>&1 || { cat "$work/log.$1" >&2; exit 2; }
    awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.$1"
}
a=$(count 10000)
b=$(count 20000)
per=$(( (b - a + 5000) / 10000 ))
echo "instructions per recorded empty PROF_SCOPE: $per (callgrind, marginal over 10,000 scopes; budget $max)"
[ "$per" -le "$max" ] || { echo "instructions_per_scope: $per > $max" >&2; exit 1; }
