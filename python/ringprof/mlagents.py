"""ML-Agents' timers (mlagents_envs.timers) on ringprof: change

    from mlagents_envs.timers import hierarchical_timer, timed, set_gauge, get_timer_tree

to `from ringprof.mlagents import ...` and the same program keeps its tree (names, counts,
nesting, is_parallel, gauges), now recorded by ringprof's engine, together with the C++ scopes of
the extensions it calls and written to ringprof's outputs. Differences, all from there being one
engine per process (docs/python.md):

- gauges are kept per thread for get_timer_tree() as ML-Agents keeps them (infinities count,
  NaN is ignored); the timers file holds the process's gauges, with infinities counted apart
  (`non_finite`) so the file stays strict JSON;
- metadata belong to the process; get_timer_tree() has ML-Agents' keys (command_line_arguments
  included), ringprof's timers file leaves the command line out (files have leaked tokens that
  way) and carries ringprof's own keys (marker cost, drops);
- reset_timers() resets every thread's timers and gauges (metadata stays);
- get_timer_root() and TimerStack.root return copies: changing them changes nothing recorded,
  except merge() on the node a `hierarchical_timer` yields, which grafts into the engine (always
  as parallel); a thread's root merged that way changes the merging thread's view only, since
  the process tree holds that thread's timers already;
- TimerStack has no push()/pop(), and `timer_stack=` arguments (ML-Agents' testing hook for
  private stacks) raise ValueError: there is one engine per process.
"""
import atexit as _atexit
import json as _json
import math as _math
import sys as _sys
import threading as _threading
import time as _time

from . import _ringprof
from . import function as _function

__all__ = ["hierarchical_timer", "timed", "set_gauge", "merge_gauges", "get_timer_tree", "get_timer_root",
           "get_timer_stack_for_thread", "reset_timers", "add_metadata", "TimerNode", "GaugeNode", "TimerStack",
           "TIMER_FORMAT_VERSION"]

# The version of the timers format ML-Agents' own timers declare (and ringprof's timers file keeps).
TIMER_FORMAT_VERSION = "0.1.0"

_scope = _ringprof.scope


def _no_private_stacks(timer_stack, what):
    if timer_stack is not None:
        raise ValueError("ringprof.mlagents.%s: timer_stack is not supported (one engine per process)" % what)


class TimerNode:
    """A node of the tree, as ML-Agents' TimerNode: children by name, total (s), count,
    is_parallel."""

    __slots__ = ["children", "total", "count", "is_parallel", "_recorded_here"]

    def __init__(self):
        self.children = {}
        self.total = 0.0
        self.count = 0
        self.is_parallel = False
        # True for a copy of a tree this process's engine holds already (a thread's root from
        # get_timer_stack_for_thread): merging it changes the calling thread's view only, so the
        # process tree does not count those timers twice.
        self._recorded_here = False

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


class GaugeNode:
    """A gauge as ML-Agents' GaugeNode: the latest value, min, max and count. Infinities count as
    values, as in ML-Agents (NaN is ignored before it gets here)."""

    __slots__ = ["value", "min_value", "max_value", "count", "_timestamp"]

    def __init__(self, value):
        self.value = self.min_value = self.max_value = value
        self.count = 1
        self._timestamp = _time.time()

    def update(self, new_value):
        self.min_value = min(self.min_value, new_value)
        self.max_value = max(self.max_value, new_value)
        self.value = new_value
        self.count += 1
        self._timestamp = _time.time()

    def merge(self, other):
        """Sums counts, widens min/max, keeps the later value (ML-Agents' merge_gauges)."""
        if self._timestamp < other._timestamp:
            self.value = other.value
            self._timestamp = other._timestamp
        self.min_value = min(self.min_value, other.min_value)
        self.max_value = max(self.max_value, other.max_value)
        self.count += other.count

    def as_dict(self):
        return {"value": self.value, "min": self.min_value, "max": self.max_value, "count": self.count}


class _ThreadTimers:
    """What ringprof.mlagents keeps for one thread beside the engine's tree: its gauges (as
    ML-Agents keeps them, per thread), the merges it made that the engine holds already
    (`grafted`), and those not yet handed to the engine (`pending`)."""

    __slots__ = ["gauges", "grafted", "pending"]

    def __init__(self):
        self.gauges = {}
        self.grafted = TimerNode()
        self.pending = {}  # (open scope names, root_name) -> [context id, accumulated TimerNode, engine?]


# Native thread id -> _ThreadTimers. Kept after the thread exits, as ML-Agents keeps its stacks, so
# a trainer can merge a joined thread's timers.
_threads = {}
_threads_lock = _threading.Lock()
# Gauge names set or merged through this module: the engine's own gauge of such a name (which
# leaves infinities out, for its JSON files) is not shown by get_timer_tree().
_python_gauges = set()
# How many merge points may wait for their graft: each holds a context, and the engine
# remembers only so many (aggregator.hpp, kContextWindow).
_MAX_PENDING = 256
_pending_count = 0
# The scope and thread of the latest merge, and its key: the merges of one `with` block (one
# per worker, per step) share one merge point, so only the first pays for capturing it.
_last_point = None


def _thread_timers(tid=None):
    tid = _threading.get_native_id() if tid is None else tid
    timers = _threads.get(tid)
    if timers is None:
        with _threads_lock:
            timers = _threads.setdefault(tid, _ThreadTimers())
    return timers


def _merge_into_current_scope(self, other, root_name=None, is_parallel=True):
    """ML-Agents' `with hierarchical_timer("workers") as node: node.merge(worker_root, ...)`:
    adds `other` (a TimerNode, e.g. a worker process's get_timer_root()) below this scope, marked
    parallel, as ML-Agents' merge does. Call it inside the `with` block.

    The merge costs about what ML-Agents' does: it is summed into a tree kept per merge point,
    which the engine receives in one graft at the next read (get_timer_tree, get_timer_root,
    reset_timers, flush) or at exit."""
    global _last_point, _pending_count
    if type(other) is not TimerNode:
        if not isinstance(other, TimerNode):
            raise TypeError("merge: expects a TimerNode (get_timer_root() of a worker), not %s"
                            % type(other).__name__)
    if not is_parallel:
        raise ValueError("merge: ringprof marks merged trees parallel (is_parallel=False is not supported)")
    tid = _threading.get_native_id()
    recorded_here = other._recorded_here
    # Under the lock: another thread's read may hand this thread's pending merges to the engine
    # at any moment, and a merge into a tree already handed over would be lost.
    with _threads_lock:
        last = _last_point
        if (last is not None and last[0] is self and last[1] == tid and last[2] == root_name
                and last[3] == recorded_here):
            node = last[4]
        else:
            context_id, names = _ringprof._merge_point()
            timers = _threads.get(tid)
            if timers is None:
                timers = _threads[tid] = _ThreadTimers()
            key = (tuple(names), root_name or None, recorded_here)
            entry = timers.pending.get(key)
            if entry is None:
                entry = timers.pending[key] = (context_id, TimerNode())
                _pending_count += 1
            node = entry[1]
            _last_point = (self, tid, root_name, recorded_here, node)
        node.merge(other, root_name=root_name or None, is_parallel=True)
        too_many = _pending_count > _MAX_PENDING
    if too_many:
        _graft_pending()


def _graft_pending():
    """Hands every thread's accumulated merges to the engine (one graft per merge point) and
    moves them to the threads' `grafted` views."""
    global _last_point, _pending_count
    with _threads_lock:
        _last_point = None
        _pending_count = 0
        work = []
        for timers in _threads.values():
            pending, timers.pending = timers.pending, {}
            for (names, root_name, recorded_here), (context_id, node) in pending.items():
                at = timers.grafted
                for name in names:
                    at = at.get_child(name)
                _overlay(at, node)
                if not recorded_here:
                    # With a root_name, the merges summed into that child of the merge point.
                    work.append((context_id, node.children[root_name] if root_name else node, root_name or ""))
    for context_id, node, graft_path in work:
        _ringprof._graft_at(context_id, _as_timers_json(node), graft_path)


def _overlay(into, node):
    """Adds `node` to `into` keeping each node's own is_parallel (a view of merges already made)."""
    into.total += node.total
    into.count += node.count
    into.is_parallel |= node.is_parallel
    for name, child in node.children.items():
        _overlay(into.get_child(name), child)


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
    """Sets the calling thread's gauge `name` (value, min, max, count), as ML-Agents does: NaN is
    ignored, infinities count. The process's gauge of that name (the timers file's) is set too."""
    _no_private_stacks(timer_stack, "set_gauge")
    if _math.isnan(value):
        return
    timers = _thread_timers()
    gauge = timers.gauges.get(name)
    if gauge is None:
        _python_gauges.add(name)
        timers.gauges[name] = GaugeNode(value)
    else:
        gauge.update(value)
    _ringprof.gauge(name, value)


def merge_gauges(gauges, timer_stack=None):
    """ML-Agents' merge_gauges: adds `gauges` (name -> GaugeNode, e.g. another thread's
    TimerStack.gauges) to the calling thread's gauges. The process's gauges, which every thread
    of this process sets already, do not change."""
    _no_private_stacks(timer_stack, "merge_gauges")
    mine = _thread_timers().gauges
    for name, gauge in gauges.items():
        _python_gauges.add(name)
        if name in mine:
            mine[name].merge(gauge)
        else:
            mine[name] = gauge


def add_metadata(key, value, timer_stack=None):
    _no_private_stacks(timer_stack, "add_metadata")
    _ringprof.add_metadata(key, value)


class TimerStack:
    """One thread's timers, as ML-Agents' TimerStack gives them: `root` (a copy of the thread's
    tree with the merges it made), `gauges` (the thread's GaugeNodes), `metadata`, get_root()
    and get_timing_tree(). Obtained from get_timer_stack_for_thread(); TimerStack() is the
    calling thread's."""

    __slots__ = ["_tid"]

    def __init__(self):
        self._tid = _threading.get_native_id()

    @classmethod
    def _of_thread(cls, tid):
        stack = cls.__new__(cls)
        stack._tid = tid
        return stack

    @property
    def root(self):
        """The thread's root TimerNode (a copy; total and count 0, as ML-Agents' root before
        get_root()). Merging it into another thread's timers changes that thread's view only: the
        process tree holds this thread's timers already."""
        root = _thread_root(_ringprof._snapshot(), self._tid)
        root.total, root.count = 0.0, 0
        _mark_recorded_here(root)
        return root

    @property
    def gauges(self):
        return _thread_timers(self._tid).gauges

    @property
    def metadata(self):
        return _metadata(_ringprof._snapshot())

    def get_root(self):
        """The root with total = time since the start or the last reset, count = 1."""
        snap = _ringprof._snapshot()
        root = _thread_root(snap, self._tid)
        root.total = snap["tree"]["total"] if snap is not None else 0.0
        root.count = 1
        return root

    def get_timing_tree(self, node=None):
        if node is not None:
            return _convert(node)
        return _timing_tree(_ringprof._snapshot(), self._tid)

    def set_gauge(self, name, value):
        if self._tid != _threading.get_native_id():
            raise ValueError("ringprof.mlagents.TimerStack.set_gauge: only the stack's own thread sets its gauges")
        set_gauge(name, value)

    def add_metadata(self, key, value):
        add_metadata(key, value)


def get_timer_stack_for_thread(t):
    """ML-Agents' get_timer_stack_for_thread: thread `t`'s TimerStack, or None if it has not
    started or never recorded a timer or gauge (also after it has exited)."""
    if t.ident is None:
        return None
    tid = t.native_id
    if tid in _threads:
        return TimerStack._of_thread(tid)
    snap = _ringprof._snapshot()
    if snap is not None and any(th["tid"] == tid and th["tree"]["children"] for th in snap["threads"]):
        return TimerStack._of_thread(tid)
    return None


def _mark_recorded_here(node):
    node._recorded_here = True
    for child in node.children.values():
        _mark_recorded_here(child)


def _thread_tree(snap, tid):
    for t in snap["threads"]:
        if t["tid"] == tid:
            return t["tree"]
    return {"name": "root", "total": 0.0, "count": 0, "is_parallel": False, "children": []}


def _thread_root(snap, tid):
    """Thread `tid`'s tree (a copy) with every merge it made."""
    _graft_pending()
    if snap is None:
        root = TimerNode()
    else:
        root = _node_from(_thread_tree(snap, tid))
    timers = _threads.get(tid)
    if timers is not None:
        _overlay(root, timers.grafted)
    return root


def _metadata(snap):
    metadata = dict(snap["metadata"]) if snap is not None else {}
    metadata.setdefault("timer_format_version", TIMER_FORMAT_VERSION)
    metadata.setdefault("python_version", _sys.version)
    # In what get_timer_tree() returns, as ML-Agents has it; ringprof's own timers file leaves the
    # command line out (docs/python.md).
    metadata.setdefault("command_line_arguments", " ".join(_sys.argv))
    return metadata


def _convert(node):
    d = {"total": node.total, "count": node.count}
    if node.is_parallel:
        d["is_parallel"] = True
    children = {name: _convert(c) for name, c in node.children.items()}
    d["self"] = max(0.0, node.total - sum(c["total"] for c in children.values()))
    if children:
        d["children"] = children
    return d


def _timing_tree(snap, tid):
    root = _thread_root(snap, tid)
    root.total = snap["tree"]["total"] if snap is not None else 0.0
    root.count = 1
    tree = {"name": "root"}
    gauges = {}
    if snap is not None:
        gauges = {name: dict(g) for name, g in snap["gauges"].items() if name not in _python_gauges}
    timers = _threads.get(tid)
    if timers is not None:
        gauges.update((name, g.as_dict()) for name, g in timers.gauges.items())
    if gauges:
        tree["gauges"] = gauges
    tree["metadata"] = _metadata(snap)
    tree.update(_convert(root))
    return tree


def get_timer_root(timer_stack=None):
    """The calling thread's root TimerNode (a copy), total = time since the start or the last
    reset, count = 1."""
    _no_private_stacks(timer_stack, "get_timer_root")
    return TimerStack().get_root()


def get_timer_tree(timer_stack=None):
    """The calling thread's tree as ML-Agents' get_timer_tree() gives it: name, gauges, metadata,
    total, count, is_parallel (only when true), self, children keyed by name (only when any)."""
    _no_private_stacks(timer_stack, "get_timer_tree")
    return _timing_tree(_ringprof._snapshot(), _threading.get_native_id())


def reset_timers(timer_stack=None):
    """Forgets every timer and gauge recorded so far, of every thread (a worker process calls it
    after sending its tree); the root's time starts again."""
    global _last_point, _pending_count
    _no_private_stacks(timer_stack, "reset_timers")
    with _threads_lock:
        _ringprof._take_tree()
        _threads.clear()
        _python_gauges.clear()
        _last_point = None
        _pending_count = 0


# The merges not yet grafted reach the engine before the session writes its final files.
_atexit.register(_graft_pending)
