"""Calls the stubs must reject; test_package.py expects mypy to report each marked line."""
import ringprof
from ringprof.mlagents import hierarchical_timer

ringprof.scope(42)  # error: scope-name-is-a-str
ringprof.gauge("loss", "high")  # error: gauge-value-is-a-number
count: str = ringprof.dropped_scopes()  # error: dropped-scopes-is-an-int
ringprof.Profile().print_stats(sort=1.5)  # error: sort-is-an-int-or-str
with hierarchical_timer("x") as node:
    node.merge({"total": 1.0})  # error: merge-takes-a-timer-node
version: int = ringprof.__version__  # error: version-is-a-str
