"""ML-Agents' timers (mlagents_envs.timers) on ringprof: change

    from mlagents_envs.timers import hierarchical_timer, timed, set_gauge, get_timer_tree

to `from ringprof.mlagents import ...` and the same program keeps its tree (names, counts,
nesting, is_parallel, gauges), now recorded by ringprof's engine, together with the C++ scopes of
the extensions it calls and written to ringprof's outputs. Differences, all from there being one
engine per process (docs/python.md):

- gauges and metadata belong to the process, not to the calling thread;
- reset_timers() resets every thread's timers and the gauges (metadata stays);
- get_timer_root() returns a copy: changing it changes nothing recorded, except merge() on the
  node a `hierarchical_timer` yields, which grafts into the engine (always as parallel);
- the metadata leave out the command line (files have leaked tokens that way) and carry
  ringprof's own keys (marker cost, drops);
- `timer_stack=` arguments (ML-Agents' testing hook for private stacks) raise ValueError.
"""
import json as _json
import math as _math
import sys as _sys
import threading as _threading

from . import _ringprof
from . import function as _function

__all__ = ["hierarchical_timer", "timed", "set_gauge", "get_timer_tree", "get_timer_root",
           "reset_timers", "add_metadata", "TimerNode"]

_scope = _ringprof.scope


def _no_private_stacks(timer_stack, what):
    if timer_stack is not None:
        raise ValueError("ringprof.mlagents.%s: timer_stack is not supported (one engine per process)" % what)


class TimerNode:
    """A node of the tree, as ML-Agents' TimerNode: children by name, total (s), count,
    is_parallel."""

    __slots__ = ["children", "total", "count", "is_parallel"]

    def __init__(self):
        self.children = {}
        self.total = 0.0
        self.count = 0
        self.is_parallel = False

    def get_child(self, name):
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = TimerNode()
        return node

    def add_time(self, elapsed):
        self.total += elapsed
        self.count += 1

    def merge(self, other, root_name=None, is_parallel=True):
        node = self.get_child(root_name) if root_name else self
        node.total += other.total
        node.count += other.count
        node.is_parallel |= is_parallel
        for name, child in other.children.items():
            node.get_child(name).merge(child, is_parallel=is_parallel)


def _node_from(d):
    node = TimerNode()
    node.total = d["total"]
    node.count = d["count"]
    node.is_parallel = d["is_parallel"]
    for c in d["children"]:
        node.children[c["name"]] = _node_from(c)
    return node


def _as_timers_json(node):
    def convert(n):
        d = {"total": n.total, "count": n.count}
        if n.is_parallel:
            d["is_parallel"] = True
        if n.children:
            d["children"] = {name: convert(c) for name, c in n.children.items()}
        return d
    d = convert(node)
    d["name"] = "root"
    return _json.dumps(d)


def _merge_into_current_scope(self, other, root_name=None, is_parallel=True):
    """ML-Agents' `with hierarchical_timer("workers") as node: node.merge(worker_root, ...)`:
    grafts `other` (a TimerNode, e.g. a worker process's get_timer_root()) below this scope,
    marked parallel. Call it inside the `with` block."""
    if not isinstance(other, TimerNode):
        raise TypeError("merge: expects a TimerNode (get_timer_root() of a worker), not %s" % type(other).__name__)
    if not is_parallel:
        raise ValueError("merge: ringprof marks merged trees parallel (is_parallel=False is not supported)")
    path = _ringprof._merge_tree(_as_timers_json(other), root_name or "")
    # The engine grafts into the process tree, below the innermost open scope (with a Profile
    # recording, the profiled merge call itself); the calling thread's own tree (what
    # get_timer_tree() returns, as in ML-Agents) gets the same merge at the same path when read.
    with _merges_lock:
        _merges.setdefault(_threading.get_native_id(), []).append((path, root_name, _copy_node(other)))


# Merges made by each thread (native id -> [(open scope names, root_name, node)]), replayed
# onto that thread's tree; forgotten at reset_timers(), as the engine forgets the grafts.
_merges = {}
_merges_lock = _threading.Lock()


def _copy_node(node):
    copy = TimerNode()
    copy.merge(node, is_parallel=node.is_parallel)
    return copy


# The object a hierarchical_timer yields is the scope itself: give it ML-Agents' merge().
_ringprof._Scope.merge = _merge_into_current_scope


def hierarchical_timer(name, timer_stack=None):
    """`with hierarchical_timer("name"):` times the block, nested under the enclosing timers of
    the calling thread (Python or C++)."""
    if timer_stack is not None:
        _no_private_stacks(timer_stack, "hierarchical_timer")
    return _scope(name)


def timed(func):
    """Decorator: times every call of `func` as a timer named func.__qualname__."""
    return _function(func)


def set_gauge(name, value, timer_stack=None):
    """Sets the gauge `name` (value, min, max, count kept); NaN is ignored, as in ML-Agents."""
    _no_private_stacks(timer_stack, "set_gauge")
    if isinstance(value, float) and _math.isnan(value):
        return
    _ringprof.gauge(name, value)


def add_metadata(key, value, timer_stack=None):
    _no_private_stacks(timer_stack, "add_metadata")
    _ringprof.add_metadata(key, value)


def _thread_tree(snap):
    tid = _threading.get_native_id()
    for t in snap["threads"]:
        if t["tid"] == tid:
            return t["tree"]
    return {"name": "root", "total": 0.0, "count": 0, "is_parallel": False, "children": []}


def get_timer_root(timer_stack=None):
    """The calling thread's root TimerNode (a copy), total = time since the start or the last
    reset, count = 1."""
    _no_private_stacks(timer_stack, "get_timer_root")
    snap = _ringprof._snapshot()
    if snap is None:
        return TimerNode()
    root = _node_from(_thread_tree(snap))
    with _merges_lock:
        merges = list(_merges.get(_threading.get_native_id(), ()))
    for path, root_name, node in merges:
        at = root
        for name in path:
            at = at.get_child(name)
        at.merge(node, root_name=root_name, is_parallel=True)
    root.total = snap["tree"]["total"]
    root.count = 1
    return root


def get_timer_tree(timer_stack=None):
    """The calling thread's tree as ML-Agents' get_timer_tree() gives it: name, gauges, metadata,
    total, count, is_parallel (only when true), self, children keyed by name (only when any)."""
    _no_private_stacks(timer_stack, "get_timer_tree")
    snap = _ringprof._snapshot()
    root = get_timer_root() if snap is not None else TimerNode()

    def convert(node):
        d = {"total": node.total, "count": node.count}
        if node.is_parallel:
            d["is_parallel"] = True
        children = {name: convert(c) for name, c in node.children.items()}
        d["self"] = max(0.0, node.total - sum(c["total"] for c in children.values()))
        if children:
            d["children"] = children
        return d

    tree = {"name": "root"}
    if snap is not None and snap["gauges"]:
        tree["gauges"] = {name: dict(g) for name, g in snap["gauges"].items()}
    metadata = dict(snap["metadata"]) if snap is not None else {}
    metadata.setdefault("python_version", _sys.version)
    tree["metadata"] = metadata
    tree.update(convert(root))
    return tree


def reset_timers(timer_stack=None):
    """Forgets every timer and gauge recorded so far (a worker process calls it after sending
    its tree); the root's time starts again."""
    _no_private_stacks(timer_stack, "reset_timers")
    with _merges_lock:
        _ringprof._take_tree()
        _merges.clear()
