"""ringprof for Python: timers in Python code that land in the same profile as the C++ markers
(PROF_SCOPE) of the extensions it calls. See docs/python.md.

    import ringprof

    @ringprof.function                      # a timer named after fn.__qualname__
    def train_step(batch):
        with ringprof.scope("forward"):     # nested under it, with any C++ scopes inside
            ...

Outputs are written at exit (and at ringprof.flush()) in RINGPROF_OUTPUT_DIR, as for C++.
"""
import functools as _functools

from ._ringprof import (  # noqa: F401  (the public API)
    add_metadata,
    disable,
    dropped_scopes,
    enable,
    flush,
    gauge,
    is_enabled,
    scope,
    set_thread_name,
    step,
)
from . import _ringprof
from ._profile import Profile, plot  # noqa: F401
from . import _forked_workers  # noqa: F401  (multiprocessing workers write their files)

__all__ = ["scope", "function", "step", "gauge", "flush", "enable", "disable", "is_enabled",
           "add_metadata", "set_thread_name", "dropped_scopes", "timer_tree", "Profile", "plot"]


def function(fn=None, *, name=None):
    """Decorator: times every call of `fn` as a scope named `name` or fn.__qualname__.

    The name is interned once, when the function is decorated; its statistics row carries the
    function's file and first line.
    """
    def decorate(f):
        if not callable(f):
            raise TypeError("ringprof.function: expects a function, got %s" % type(f).__name__)
        code = getattr(f, "__code__", None)
        timer = _ringprof._scope_at(
            name if name is not None else getattr(f, "__qualname__", getattr(f, "__name__", repr(f))),
            code.co_filename if code is not None else "<python>",
            code.co_firstlineno if code is not None else 0)

        @_functools.wraps(f)
        def timed_call(*args, **kwargs):
            with timer:
                return f(*args, **kwargs)
        return timed_call

    return decorate(fn) if fn is not None else decorate


def timer_tree():
    """The process's timer tree now, as nested dicts (name, total, count, is_parallel, children),
    or None before the first scope."""
    snap = _ringprof._snapshot()
    return None if snap is None else snap["tree"]
