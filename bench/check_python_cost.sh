#!/usr/bin/env bash
# The Python markers' cost budgets (bench/python_cost.py: scope at most 1/5 of a pure-Python
# hierarchical timer, the Profile hook at most cProfile), measured on the package as a user
# installs it. A benchmark step beside the C++ overhead budget, not a unit test: it measures time.
# Usage: bench/check_python_cost.sh BUILD_DIR (built with RINGPROF_BUILD_PYTHON=ON)
# Exits 1 over a budget in every attempt, 2 when it cannot measure.
set -euo pipefail

# A shared machine can slow one run's variants unevenly (Profile measured 0.82-0.96 of
# cProfile at load 8-38); the best of three runs counts. Measured on one CPU in process time
# (python_cost.py says why): the measuring thread's time alone reads Profile at 1.01-1.02 of
# cProfile at load 127-138, where process time reads 0.75-0.82.
attempts=3
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
work="$build/python_cost"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null ||
    { echo "check_python_cost: cmake --install $build failed" >&2; exit 2; }
site=$(cd "$work/prefix" && ls -d lib/python3*/site-packages 2>/dev/null | head -1)
[ -n "$site" ] || { echo "check_python_cost: no Python module in $build (RINGPROF_BUILD_PYTHON=ON?)" >&2; exit 2; }
for attempt in $(seq "$attempts"); do
    if PYTHONPATH="$work/prefix/$site" RINGPROF_OUTPUT_DIR="$work/out" RINGPROF_BACKENDS=timers \
        timeout 600 "$python" "$here/python_cost.py" --check; then
        exit 0
    fi
    echo "check_python_cost: over budget in attempt $attempt of $attempts (machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
done
exit 1
