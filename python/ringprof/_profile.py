"""accelerate.profiler's Profile and plot() on ringprof's engine (docs/python.md)."""
import collections as _collections
import os as _os
import sys as _sys

from . import _ringprof

# accelerate's profiler_entry / profiler_subentry / code, field for field.
ProfilerCode = _collections.namedtuple("ProfilerCode", "file line name signature")
ProfilerEntry = _collections.namedtuple("ProfilerEntry", "code callcount reccallcount totaltime inlinetime calls")
ProfilerSubEntry = _collections.namedtuple("ProfilerSubEntry", "code callcount reccallcount totaltime inlinetime")

# pstats' integer sort keys (print_stats(sort=-1) is cProfile's default, the standard name).
_INTEGER_SORTS = {-1: "stdname", 0: "calls", 1: "tottime", 2: "cumulative"}


class Profile:
    """Profile(custom_timer=None, time_unit=None, subcalls=True, builtins=True, signatures=True)

    Like accelerate.profiler.Profile (itself cProfile.Profile plus argument signatures): enable()
    profiles every Python call of the calling thread (and C functions with builtins=True) into
    ringprof's engine, so the calls nest with ringprof scopes and C++ PROF_SCOPEs; print_stats()
    prints cProfile's table, one row per distinct signature (NumPy arrays by dtype and shape).
    """

    def __init__(self, custom_timer=None, time_unit=None, subcalls=True, builtins=True, signatures=True):
        if custom_timer is not None:
            # Markers call the clock from C++ threads that do not hold the GIL (and from the
            # drainer, after Python has finalized at exit): a Python clock cannot serve them.
            raise ValueError("ringprof.Profile: custom_timer is not supported from Python (ringprof's markers "
                             "read the CPU's tick counter; a C++ program can pass a clock, see docs/stats.md)")
        if time_unit is not None:
            raise ValueError("ringprof.Profile: time_unit only applies to a custom_timer")
        self._subcalls = bool(subcalls)
        self._profile = _ringprof._Profile(bool(subcalls), bool(builtins), bool(signatures))

    def enable(self, subcalls=None, builtins=None):
        if subcalls is not None and bool(subcalls) != self._subcalls:
            raise ValueError("ringprof.Profile.enable: subcalls is fixed when the Profile is made")
        self._profile.enable()

    def disable(self):
        self._profile.disable()

    def clear(self):
        self._profile.clear()

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc):
        self.disable()
        return False

    def getstats(self):
        """accelerate's getstats(): a list of ProfilerEntry (times in seconds)."""
        rows = self._profile.rows()
        codes = [ProfilerCode(r["file"], r["line"], r["name"], r["signature"]) for r in rows]
        entries = []
        for code, r in zip(codes, rows):
            c = r["counts"]
            calls = None
            if self._subcalls:
                calls = [ProfilerSubEntry(codes[i], s["ncalls"], s["ncalls"] - s["primitive_calls"], s["cumtime"],
                                          s["tottime"]) for i, s in r["callees"]]
            entries.append(ProfilerEntry(code, c["ncalls"], c["ncalls"] - c["primitive_calls"], c["cumtime"],
                                         c["tottime"], calls))
        return entries

    def stats_table(self, sort=-1):
        """The text print_stats() prints."""
        if isinstance(sort, int) and not isinstance(sort, bool):
            if sort not in _INTEGER_SORTS:
                raise ValueError("ringprof.Profile: unknown sort %r (one of -1, 0, 1, 2 or a name)" % sort)
            sort = _INTEGER_SORTS[sort]
        if not isinstance(sort, str):
            raise TypeError("ringprof.Profile: sort must be an int or a str, not %s" % type(sort).__name__)
        return self._profile.table(sort)

    def print_stats(self, sort=-1):
        """cProfile's table: `N function calls (M primitive calls)`, ncalls as `2/1` for recursion."""
        _sys.stdout.write(self.stats_table(sort))


def plot(profile=None, path=None):
    """Writes the interactive flame page of the session's timer tree (which holds the calls
    `profile` recorded, nested with every scope) and returns its path; in a Jupyter notebook it
    is also shown inline."""
    if profile is not None and not isinstance(profile, Profile):
        raise TypeError("ringprof.plot: expects a ringprof.Profile, not %s" % type(profile).__name__)
    info = _ringprof._run_info()
    if info is None:
        raise RuntimeError("ringprof.plot: nothing was recorded yet")
    if path is None:
        path = _os.path.join(info["output_dir"], info["run_id"] + "_profile_flame.html")
    _ringprof._write_flame_page(str(path), info["run_id"])
    _show_in_notebook(str(path))
    return str(path)


def _show_in_notebook(path):
    ipython = _sys.modules.get("IPython")
    if ipython is None:
        return
    shell = ipython.get_ipython()
    if shell is None or type(shell).__name__ != "ZMQInteractiveShell":
        return  # a terminal IPython: the path is the answer
    import html
    from IPython.display import HTML, display
    with open(path, encoding="utf-8") as f:
        page = f.read()
    display(HTML('<iframe style="width:100%%;height:600px;border:0" srcdoc="%s"></iframe>' % html.escape(page)))
