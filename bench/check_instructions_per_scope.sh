#!/usr/bin/env bash
# Instructions one recorded PROF_SCOPE executes, counted by callgrind (exact, unlike times on a
# shared machine), against a fixed ceiling. Usage: bench/check_instructions_per_scope.sh BUILD_DIR
# Exits 1 above the ceiling or when the loop dropped scopes, 2 when it cannot measure.
set -euo pipefail

# The marker counts 35 with the loop (one compare admits a Begin, an End only writes, the Scope closes
# through one word kept in registers, each write is bracketed by two stores of the thread's ring
# pointer: detail/recorder.hpp); the ceiling leaves room for a platform's differences but fails the
# 60-odd of a marker that checks its ring, its thread and its clock on every event.
ceiling=${RINGPROF_SCOPE_INSTRUCTION_CEILING:-50}

build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
loop="$build/bench/scope_instruction_loop"
[ -x "$loop" ] || { echo "check_instructions_per_scope: $loop not built (target scope_instruction_loop)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "check_instructions_per_scope: valgrind is not installed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only instructions executed inside record_scopes() (and what it calls) are collected.
(cd "$work" && valgrind --tool=callgrind --callgrind-out-file="$work/out" --toggle-collect=record_scopes \
    "$loop" >"$work/stdout" 2>"$work/stderr") || {
    echo "check_instructions_per_scope: the loop failed (dropped scopes?):" >&2
    cat "$work/stdout" "$work/stderr" >&2
    exit 1
}
scopes=$(awk '/^scopes /{print $2}' "$work/stdout")
instructions=$(awk '/^(summary|totals):/{print $2; exit}' "$work/out")
if [ -z "$scopes" ] || [ -z "$instructions" ] || [ "$scopes" -eq 0 ]; then
    echo "check_instructions_per_scope: could not read the counts" >&2
    exit 2
fi
per_scope=$(awk -v i="$instructions" -v s="$scopes" 'BEGIN{printf "%.1f", i / s}')
echo "instructions per recorded PROF_SCOPE: $per_scope (ceiling $ceiling; $instructions instructions, $scopes scopes)"
if awk -v p="$per_scope" -v c="$ceiling" 'BEGIN{exit !(p > c)}'; then
    echo "check_instructions_per_scope: OVER the ceiling of $ceiling instructions per scope" >&2
    exit 1
fi
