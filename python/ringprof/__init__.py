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
import os as _os

from ._ringprof import (  # noqa: F401  (the public API)
    AdoptContext,
    Context,
    add_metadata,
    capture_context,
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
from . import _process_end  # noqa: F401  (the session ends at Python's exit)
from ._version import __version__  # noqa: F401

__all__ = ["scope", "function", "step", "gauge", "flush", "enable", "disable", "is_enabled",
           "add_metadata", "set_thread_name", "capture_context", "Context", "AdoptContext", "dropped_scopes", "timer_tree", "Profile", "plot",
           "get_include", "get_cmake_dir", "get_library", "__version__"]


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


# The C++ side of a pip-installed ringprof lies inside the package (see docs/python.md), for
# extensions that must link the same engine: ringprof/include, ringprof/lib.
_HERE = _os.path.dirname(_os.path.abspath(__file__))


def _packaged(*parts):
    path = _os.path.join(_HERE, *parts)
    if not _os.path.exists(path):
        raise FileNotFoundError(
            "ringprof: %s is not in this installation (%s): the headers and libringprof.so come with "
            "`pip install`; with a CMake installation use find_package(ringprof) and "
            "-DCMAKE_PREFIX_PATH=<prefix>" % (_os.path.join(*parts), _HERE))
    return path


def get_include():
    """The folder to add to the include path (it holds ringprof/ringprof.hpp)."""
    return _packaged("include")


def get_cmake_dir():
    """The folder of ringprofConfig.cmake: `-Dringprof_DIR=$(python -c 'import ringprof;
    print(ringprof.get_cmake_dir())')` then find_package(ringprof) and link ringprof::shared."""
    return _packaged("lib", "cmake", "ringprof")


def get_library():
    """libringprof.so, the engine this module records into: link an extension with it (not the
    static library) so its PROF_SCOPEs and Python's scopes nest in one tree."""
    lib = _packaged("lib")
    names = sorted(n for n in _os.listdir(lib) if n.startswith("libringprof.so"))
    if not names:
        raise FileNotFoundError("ringprof: no libringprof.so in %s" % lib)
    return _os.path.join(lib, names[0])
