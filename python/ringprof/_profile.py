"""accelerate.profiler's Profile and plot() on ringprof's engine (docs/python.md)."""
import collections as _collections
import io as _io
import marshal as _marshal
import os as _os
import sys as _sys
import threading as _threading
import types as _types

from . import _ringprof

_ProfilerEntryFields = _collections.namedtuple("ProfilerEntry", "code callcount reccallcount totaltime inlinetime calls")
_ProfilerSubEntryFields = _collections.namedtuple("ProfilerSubEntry", "code callcount reccallcount totaltime inlinetime")


class ProfilerEntry(_ProfilerEntryFields):
    """cProfile's profiler_entry, field for field (`code`: the code object of a Python function,
    the name of a C function; `calls`: None when it called nothing), plus accelerate's argument
    signature as the attribute `signature` ("(a:int)", or ""), kept out of the tuple so that code
    unpacking cProfile's six fields works unchanged."""

    def __new__(cls, code, callcount, reccallcount, totaltime, inlinetime, calls, signature=""):
        entry = super().__new__(cls, code, callcount, reccallcount, totaltime, inlinetime, calls)
        entry.signature = signature
        return entry


class ProfilerSubEntry(_ProfilerSubEntryFields):
    """cProfile's profiler_subentry, plus the callee's `signature` as ProfilerEntry has it."""

    def __new__(cls, code, callcount, reccallcount, totaltime, inlinetime, signature=""):
        entry = super().__new__(cls, code, callcount, reccallcount, totaltime, inlinetime)
        entry.signature = signature
        return entry

# The engine's methods, called as the plain C functions they are (`_disable(self._profile)`):
# through 3.10 CPython tells a profiler of a C call only when the callee is a C function, not a
# bound method, and the profiler's own enable/disable/getstats are rows of its table as in cProfile's.
_enable, _disable, _clear, _getstats = (_ringprof._Profile.__dict__[name].__func__
                                        for name in ("enable", "disable", "clear", "getstats"))



class Profile:
    """Profile(custom_timer=None, time_unit=None, subcalls=True, builtins=True, signatures=True)

    Like accelerate.profiler.Profile (itself cProfile.Profile plus argument signatures): enable()
    profiles every Python call of the calling thread (and C functions with builtins=True) into
    ringprof's engine, so the calls nest with ringprof scopes and C++ PROF_SCOPEs; print_stats()
    prints cProfile's table, one row per distinct signature (NumPy arrays by dtype and shape).
    """

    def __init__(self, custom_timer=None, time_unit=None, subcalls=True, builtins=True, signatures=True):
        self._subcalls = bool(subcalls)
        self._timed_by = None
        if custom_timer is not None:
            # ringprof's engine times calls with its own clock, read by C++ markers on threads
            # that do not hold the GIL, where a Python callable cannot run. A Profile timed by
            # the program's clock is therefore cProfile's own profiler (the one accelerate's
            # extends), with its times, its rows and no signatures (docs/python.md).
            import cProfile
            self._timed_by = cProfile.Profile(custom_timer, time_unit or 0.0, bool(subcalls), bool(builtins))
            # Its C methods called directly, so that its table has no row of this wrapper.
            self.enable = self._timed_by.enable
            self.disable = self._timed_by.disable
            self.clear = self._timed_by.clear
            self._profile = None
            return
        # time_unit without a custom_timer: ignored, as cProfile ignores it.
        self._profile = _ringprof._Profile(bool(builtins), bool(signatures))

    def enable(self, subcalls=None, builtins=None):
        """Starts profiling the calling thread. `subcalls` and `builtins`, when given, change the
        Profile's settings from now on, as cProfile's enable() does."""
        if subcalls is not None:
            self._subcalls = bool(subcalls)
        _enable(self._profile, None if builtins is None else bool(builtins))
        _watch_thread_end()

    def disable(self):
        _disable(self._profile)

    def clear(self):
        _clear(self._profile)

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc):
        self.disable()
        return False

    def getstats(self):
        """cProfile's getstats(), with accelerate's signatures: a list of ProfilerEntry (times in
        seconds)."""
        if self._timed_by is not None:
            return [ProfilerEntry(e.code, e.callcount, e.reccallcount, e.totaltime, e.inlinetime,
                                  None if e.calls is None else [ProfilerSubEntry(*c) for c in e.calls])
                    for e in self._timed_by.getstats()]
        rows = _getstats(self._profile)
        site_codes = _ringprof._python_site_codes()
        codes = [_code_and_signature(r, site_codes) for r in rows]
        entries = []
        for (code, signature), r in zip(codes, rows):
            c = r["counts"]
            calls = None
            if self._subcalls and r["callees"]:
                calls = [ProfilerSubEntry(codes[i][0], s["ncalls"], s["ncalls"] - s["primitive_calls"], s["cumtime"],
                                          s["tottime"], codes[i][1]) for i, s in r["callees"]]
            entries.append(ProfilerEntry(code, c["ncalls"], c["ncalls"] - c["primitive_calls"], c["cumtime"],
                                         c["tottime"], calls, signature))
        return entries

    def create_stats(self):
        """cProfile's create_stats(): disables, then fills .stats with what pstats.Stats reads."""
        self.disable()
        self.snapshot_stats()

    def snapshot_stats(self):
        """.stats as cProfile builds it: {(file, line, name): (primitive calls, calls, tottime,
        cumtime, {caller: (calls, primitive calls, tottime, cumtime)})}. Built-ins are in file "~"
        line 0; with signatures on, the name carries the signature, one entry per signature."""
        if self._timed_by is not None:
            self._timed_by.snapshot_stats()
            self.stats = self._timed_by.stats
            return
        rows = _getstats(self._profile)
        labels = [(r["file"], r["line"], r["name"] + r["signature"]) for r in rows]
        stats = {}
        for label, r in zip(labels, rows):
            c = r["counts"]
            entry = (c["primitive_calls"], c["ncalls"], c["tottime"], c["cumtime"])
            old = stats.get(label)  # two rows with one label (scopes named alike) are summed
            callers = old[4] if old else {}
            stats[label] = _sum(entry, old[:4]) + (callers,) if old else entry + (callers,)
        if self._subcalls:
            for label, r in zip(labels, rows):
                for i, s in r["callees"]:
                    callers = stats[labels[i]][4]
                    call = (s["ncalls"], s["primitive_calls"], s["tottime"], s["cumtime"])
                    callers[label] = _sum(call, callers[label]) if label in callers else call
        self.stats = stats

    def dump_stats(self, file):
        """Writes the statistics to `file` (a path) in the marshal format pstats.Stats(file)
        loads, as cProfile does; snakeviz, gprof2dot and tuna read it too."""
        with open(file, "wb") as f:
            self.create_stats()
            _marshal.dump(self.stats, f)

    def stats_table(self, sort=-1):
        """The text print_stats() prints."""
        import pstats
        out = _io.StringIO()
        try:
            pstats.Stats().sort_stats(sort)  # the key checked before anything is collected
        except KeyError:
            # cProfile's print_stats raises KeyError for an unknown key too; this one says which keys exist.
            raise KeyError("ringprof.Profile: unknown sort key %r (one of %s, a unique prefix of one, or -1, 0, "
                           "1, 2)" % (sort, ", ".join(sorted(pstats.Stats.sort_arg_dict_default)))) from None
        self.create_stats()
        # pstats refuses a profile without calls; the table then says "0 function calls".
        stats = pstats.Stats(self, stream=out) if self.stats else pstats.Stats(stream=out)
        stats.strip_dirs().sort_stats(sort).print_stats()
        return out.getvalue()

    def print_stats(self, sort=-1):
        """cProfile's print_stats(): pstats' table, sorted by any key pstats accepts (a name, a
        unique prefix of one, a pstats.SortKey, or the legacy integers -1, 0, 1, 2)."""
        _sys.stdout.write(self.stats_table(sort))


class _ThreadEnd:
    """Held by a thread-local: dropped as the thread ends (its thread state is cleared, on that
    thread), which closes the window of the Profile recording it while its rows can be read."""
    __slots__ = ()

    def __del__(self):
        _ringprof._end_thread_profiles()


_thread_end = _threading.local()


def _watch_thread_end():
    if getattr(_thread_end, "sentinel", None) is None:
        _thread_end.sentinel = _ThreadEnd()


def _code_and_signature(row, site_codes):
    """cProfile's `code` of a row (the code object of a Python function, the name of a C
    function) and the row's argument signature apart from it."""
    name = row["name"]
    code = site_codes.get((row["file"], row["line"], row["function"]))
    if code is not None and name.startswith(code.co_name):
        return code, name[len(code.co_name):]
    return name, row["signature"]  # a C function, scope or C++ marker: named as its row is


def _sum(a, b):
    return tuple(x + y for x, y in zip(a, b))


# Profile's own frames (disable, __exit__, create_stats, ...) are no rows: as with cProfile, the
# table holds the calls of the program and the one call of the profiler's C-level disable().
_ringprof._hide_from_profile(*[f.__code__ for f in vars(Profile).values() if isinstance(f, _types.FunctionType)],
                             _ThreadEnd.__del__.__code__, _watch_thread_end.__code__)


def plot(profile, path=None):
    """accelerate's plot(profiler): this profile's statistics, each function (with its signature)
    with its calls, times and callers, sorted by cumulative time. Shown inline in a Jupyter
    notebook; also written to `path` (default: <output dir>/<run id>_profile_stats.html), whose
    path is returned, and outside a notebook printed."""
    if not isinstance(profile, Profile):
        raise TypeError("ringprof.plot: expects a ringprof.Profile, not %s" % type(profile).__name__)
    profile.snapshot_stats()
    fragment = _stats_fragment(profile.stats)
    if path is None:
        info = _ringprof._run_info()
        if info is None:
            raise RuntimeError("ringprof.plot: no session is recording (its output folder is where the page goes)")
        path = _os.path.join(info["output_dir"], info["run_id"] + "_profile_stats.html")
    path = str(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ringprof profile</title></head>"
                "<body>\n%s\n</body></html>\n" % fragment)
    if not _show_in_notebook(fragment):
        print("ringprof.plot: wrote %s" % path)
    return path


def _label(key):
    file, line, name = key
    return name if file == "~" else "%s:%d(%s)" % (_os.path.basename(file), line, name)


def _stats_fragment(stats):
    """An HTML fragment (no script, no frame: a notebook shows it as it is) of `stats` (.stats as
    pstats reads it): one row per function by cumulative time, a bar of its share of the
    largest, and its callers below it."""
    import html
    rows = sorted(stats.items(), key=lambda item: (-item[1][3], _label(item[0])))
    top = max((v[3] for _, v in rows), default=0.0) or 1.0
    out = ['<div class="ringprof-profile" style="font-family:monospace;font-size:12px">',
           "<style>.ringprof-profile td{padding:1px 8px;vertical-align:top;white-space:nowrap}"
           ".ringprof-profile .bar{background:#e8743b;height:10px;display:inline-block}"
           ".ringprof-profile .caller{color:#666}</style>",
           "<table><tr><th>ncalls</th><th>tottime (s)</th><th>cumtime (s)</th><th></th><th>function</th></tr>"]
    for key, (primitive, calls, tottime, cumtime, callers) in rows:
        ncalls = str(calls) if calls == primitive else "%d/%d" % (calls, primitive)
        width = int(round(200 * cumtime / top))
        out.append('<tr class="function"><td>%s</td><td>%.6f</td><td>%.6f</td>'
                   '<td><span class="bar" style="width:%dpx"></span></td><td>%s</td></tr>'
                   % (ncalls, tottime, cumtime, width, html.escape(_label(key))))
        for caller, (c_calls, c_primitive, c_tottime, c_cumtime) in sorted(callers.items(), key=lambda c: -c[1][3]):
            out.append('<tr class="caller"><td>%d</td><td>%.6f</td><td>%.6f</td><td></td>'
                       '<td>&larr; called by %s</td></tr>'
                       % (c_calls, c_tottime, c_cumtime, html.escape(_label(caller))))
    out.append("</table></div>")
    return "\n".join(out)


def _show_in_notebook(fragment):
    """Displays `fragment` in a Jupyter notebook (an HTML output, no frame); False elsewhere."""
    ipython = _sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    if shell is None or type(shell).__name__ != "ZMQInteractiveShell":
        return False  # a terminal IPython: the path is the answer
    from IPython.display import HTML, display
    display(HTML(fragment))
    return True
