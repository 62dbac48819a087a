"""ringprof.Profile (accelerate.profiler's Profile) and ringprof.plot: cProfile's table layout,
`2/1` for recursion, NumPy signatures by dtype and shape, one engine with scopes and C++."""
import re

import pytest

from conftest import child, path, require_module, run_scenario

DOT_PROGRAM = """
    import cProfile, io, json, pstats, sys
    import numpy as np
    import ringprof

    depth = [0]
    def dot(a, b):
        depth[0] += 1
        sum = 0
        for i in range(len(a)):
            sum += a[i] * b[i]
        if depth[0] == 1:
            dot(a, b)                   # called recursively once: ncalls 2/1
        depth[0] -= 1
        return sum

    a = np.arange(16, dtype=np.float32)
    b = np.arange(16, dtype=np.float32)
    tables = {}
    for signatures in (True, False):
        p = ringprof.Profile(signatures=signatures)
        p.enable()
        dot(a, b)
        p.disable()
        tables[signatures] = p.stats_table()
    entries = [[getattr(e.code, "co_name", e.code), e.callcount, e.reccallcount,
                [getattr(s.code, "co_name", s.code) for s in (e.calls or [])]]
               for e in p.getstats()]
    c = cProfile.Profile()
    c.enable()
    dot(a, b)
    c.disable()
    out = io.StringIO()
    pstats.Stats(c, stream=out).print_stats()
    print(json.dumps({"sig": tables[True], "nosig": tables[False], "entries": entries, "cprofile": out.getvalue()}))
"""

ROW = re.compile(r"^\s+(\d+(?:/\d+)?)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3}) (\S.*)$")


def parse_table(text):
    """cProfile's layout, parsed back: (calls, primitive calls, {stdname: ncalls})."""
    lines = text.splitlines()
    header = re.match(r"^\s+(\d+) function calls (?:\((\d+) primitive calls\) )?in \d+\.\d{3} seconds$", lines[0])
    assert header, lines[0]
    assert lines[2].strip() == "Ordered by: standard name"
    assert lines[4].split() == ["ncalls", "tottime", "percall", "cumtime", "percall", "filename:lineno(function)"]
    rows = {}
    for line in lines[5:]:
        if not line.strip():
            continue
        m = ROW.match(line)
        assert m, "not a cProfile row: %r" % line
        rows[m.group(6)] = m.group(1)
    calls = int(header.group(1))
    return calls, int(header.group(2) or calls), rows


def test_the_table_has_cprofile_layout_recursion_as_2_1_and_numpy_signatures(tmp_path):
    require_module("numpy")
    r = run_scenario(tmp_path, DOT_PROGRAM).result()
    calls, primitive, rows = parse_table(r["sig"])
    dot_sig = "scenario.py:7(dot(a:ndarray(dtype=float32, shape=(16,)), b:ndarray(dtype=float32, shape=(16,))))"
    assert rows[dot_sig] == "2/1"
    assert calls == primitive + 1, "one recursive call"
    assert rows["{built-in method builtins.len}"] == "2"


def test_without_signatures_a_function_is_one_row_with_cprofile_counts(tmp_path):
    require_module("numpy")
    r = run_scenario(tmp_path, DOT_PROGRAM).result()
    _, _, rows = parse_table(r["nosig"])
    assert rows["scenario.py:7(dot)"] == "2/1"
    # cProfile on the same program counts the same calls.
    cprofile_dot = [line.split()[0] for line in r["cprofile"].splitlines() if "scenario.py:7(dot)" in line]
    assert cprofile_dot == ["2/1"]


def test_getstats_gives_accelerate_entries_with_recursion_and_subcalls(tmp_path):
    require_module("numpy")
    r = run_scenario(tmp_path, DOT_PROGRAM).result()
    dot = [e for e in r["entries"] if e[0] == "dot"]
    assert len(dot) == 1
    _, callcount, reccallcount, callees = dot[0]
    assert (callcount, reccallcount) == (2, 1)
    assert "dot" in callees and "<built-in method builtins.len>" in callees


def test_signatures_name_each_kind_of_argument_and_tell_apart_shapes_and_subclassed_arrays(tmp_path):
    require_module("numpy")
    r = run_scenario(tmp_path, """
        import json
        import numpy as np
        import ringprof

        class Frames(np.ndarray):          # an ndarray subclass is shown as an array
            pass

        def mixed(i, items, a, s, x):
            pass

        p = ringprof.Profile()
        p.enable()
        for shape in ((2, 3), (2, 3), (4,)):
            mixed(1, [], np.zeros(shape), np.zeros(5).view(Frames), np.float32(1))
        p.disable()
        print(json.dumps(p.stats_table()))
    """).result()
    _, _, rows = parse_table(r)
    tail = "s:ndarray(dtype=float64, shape=(5,)), x:float32))"
    assert rows["scenario.py:9(mixed(i:int, items:list, a:ndarray(dtype=float64, shape=(2, 3)), " + tail] == "2"
    assert rows["scenario.py:9(mixed(i:int, items:list, a:ndarray(dtype=float64, shape=(4,)), " + tail] == "1"


def test_signatures_read_the_arguments_a_closure_captures(tmp_path):
    # No NumPy: every interpreter the package builds for reads arguments from its own frame layout.
    r = run_scenario(tmp_path, """
        import json
        import ringprof

        def captured(v, *, k):             # v and k live in cells: the closure below reads them
            return (lambda: (v, k))()

        p = ringprof.Profile()
        p.enable()
        captured(7, k=1.5)
        captured("seven", k=None)
        p.disable()
        print(json.dumps(p.stats_table()))
    """).result()
    _, _, rows = parse_table(r)
    assert rows["scenario.py:5(captured(v:int, k:float))"] == "1"
    assert rows["scenario.py:5(captured(v:str, k:NoneType))"] == "1"


def test_a_methods_self_or_cls_is_left_out_of_its_signature_and_other_first_arguments_are_kept(tmp_path):
    r = run_scenario(tmp_path, """
        import json
        import ringprof

        class Model:
            def step(self, x):
                pass
            @classmethod
            def build(cls, name):
                pass

        def plain(this, x):
            pass

        p = ringprof.Profile()
        p.enable()
        Model().step(1)
        Model.build("m")
        plain(Model(), 2.0)
        p.disable()
        print(json.dumps(p.stats_table()))
    """).result()
    _, _, rows = parse_table(r)
    signatures = sorted(re.sub(r"^scenario\.py:\d+\(", "", name)[:-1] for name in rows if name.startswith("scenario.py:"))
    assert signatures == ["build(name:str)", "plain(this:Model, x:float)", "step(x:int)"], rows


def test_profiled_calls_nest_with_scopes_and_cpp_kernels_and_builtins_can_be_left_out(tmp_path, kernels):
    run = run_scenario(tmp_path, """
        import json, ringprof, test_kernels
        def step():
            with ringprof.scope("inside_step"):
                return test_kernels.kernel(3)
        p = ringprof.Profile(builtins=False, signatures=False)
        p.enable()
        step()
        p.disable()
        with ringprof.scope("after_profile"):   # the thread's nesting is intact
            pass
        print(json.dumps(p.stats_table()))
    """, extra_path=[kernels])
    _, _, rows = parse_table(run.result())
    assert rows["scenario.py:3(step)"] == "1"
    assert not [name for name in rows if name.startswith("{")], "builtins=False: no C functions"
    root = run.timers()
    assert path(root, "step", "inside_step", "cpp_kernel", "cpp_inner")["count"] == 3
    assert path(root, "after_profile")["count"] == 1


def test_a_cpp_extension_function_has_one_row_and_key_per_argument_shape(tmp_path, kernels):
    # PROF_FUNCTION_SIG in a C++ extension, called under Profile with two signatures: two rows
    # of the table and two keys of .stats (what pstats reads), as two Python signatures are.
    run = run_scenario(tmp_path, """
        import json, ringprof, test_kernels
        p = ringprof.Profile(builtins=False)
        p.enable()
        test_kernels.labelled("ab")
        test_kernels.labelled("abcd")
        test_kernels.labelled("cd")
        p.disable()
        p.create_stats()
        print(json.dumps(sorted([name, stats[0], stats[1]] for (_, _, name), stats in p.stats.items()
                                if name.startswith("labelled"))))
    """, extra_path=[kernels])
    assert run.result() == [["labelled(label:string(len=2))", 2, 2], ["labelled(label:string(len=4))", 1, 1]]


def test_disable_inside_a_profiled_call_still_closes_every_call_it_opened(tmp_path):
    run = run_scenario(tmp_path, """
        import json, ringprof
        p = ringprof.Profile(signatures=False)
        def outer():
            inner()
            p.disable()                    # outer, and disable itself, are still running
            with ringprof.scope("late"):
                pass
        def inner():
            pass
        p.enable()
        outer()
        outer()                            # no longer profiled
        with ringprof.scope("after"):
            pass
        print(json.dumps(p.stats_table()))
    """)
    _, _, rows = parse_table(run.result())
    assert rows["scenario.py:4(outer)"] == "1"
    root = run.timers()
    assert path(root, "outer", "inner")["count"] == 1
    assert path(root, "outer", "late")["count"] == 1
    assert path(root, "late")["count"] == 1 and path(root, "after")["count"] == 1


@pytest.mark.parametrize("remove", ["sys.setprofile(None)", "c = cProfile.Profile(); c.enable(); c.disable()"])
def test_a_hook_removed_while_calls_run_leaves_no_scope_open(tmp_path, remove):
    run = run_scenario(tmp_path, """
        import cProfile, json, sys, ringprof
        p = ringprof.Profile(signatures=False)
        def removes_the_hook():
            %s
        p.enable()
        removes_the_hook()                 # its return never reaches ringprof's hook
        for _ in range(3):
            with ringprof.scope("later"):
                pass
        print(json.dumps(p.stats_table()))
    """ % remove)
    root = run.timers()
    assert path(root, "removes_the_hook")["count"] == 1
    assert path(root, "later")["count"] == 3, "later scopes nest where they ran, not below the removed hook's call"
    assert child(path(root, "removes_the_hook"), "later") is None


PLOT_PROGRAM = """
import json, sys, types
import ringprof

def traced_function(x):
    return helper(x)

def helper(x):
    return x

def not_profiled():
    pass

with ringprof.scope("session_scope"):
    not_profiled()
p = ringprof.Profile()
with p:
    traced_function(1)
not_profiled()
"""


def test_plot_writes_this_profiles_functions_and_callers_and_says_where(tmp_path):
    run = run_scenario(tmp_path, PLOT_PROGRAM + """
path = ringprof.plot(p)
print(json.dumps(path))
""")
    page_path = run.result()
    assert page_path == run.path("profile_stats.html")
    assert "ringprof.plot: wrote " + page_path in run.stdout
    with open(page_path) as f:
        page = f.read()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "scenario.py:5(traced_function(x:int))" in page
    assert "called by scenario.py:5(traced_function(x:int))" in page  # helper's caller
    assert "not_profiled" not in page and "session_scope" not in page, "only this profile's calls"


def test_plot_in_a_notebook_shows_the_statistics_inline_without_a_frame(tmp_path):
    # A stand-in for IPython in a Jupyter kernel: what plot() hands to display() is recorded.
    run = run_scenario(tmp_path, """
import sys, types
shown = []
class ZMQInteractiveShell:
    pass
ipython = types.ModuleType("IPython")
ipython.get_ipython = lambda: ZMQInteractiveShell()
display_module = types.ModuleType("IPython.display")
class HTML:
    def __init__(self, data):
        self.data = data
display_module.HTML = HTML
display_module.display = lambda obj: shown.append(obj.data)
ipython.display = display_module
sys.modules["IPython"] = ipython
sys.modules["IPython.display"] = display_module
""" + PLOT_PROGRAM + """
ringprof.plot(p)
print(json.dumps(shown))
""")
    shown = run.result()
    assert len(shown) == 1
    assert "traced_function(x:int)" in shown[0] and "helper(x:int)" in shown[0]
    assert "<iframe" not in shown[0], "IPython warns about an iframe in HTML output"
    assert "ringprof.plot: wrote" not in run.stdout


def test_profile_errors_are_python_exceptions(tmp_path):
    run = run_scenario(tmp_path, """
        import json, ringprof
        errors = {}
        def catch(key, f):
            try:
                f()
            except Exception as e:
                errors[key] = type(e).__name__
        catch("sort", lambda: ringprof.Profile().print_stats(sort="bogus"))
        catch("sort_int", lambda: ringprof.Profile().print_stats(sort=7))
        catch("plot", lambda: ringprof.plot("not a profile"))
        catch("plot_none", lambda: ringprof.plot(None))
        print(json.dumps(errors))
    """)
    assert run.result() == {"sort": "KeyError", "sort_int": "KeyError",
                            "plot": "TypeError", "plot_none": "TypeError"}


def test_each_signature_component_alone_makes_a_row_and_no_change_makes_one(tmp_path):
    require_module("numpy")
    # One case per component of a Python signature: the base call, then a call that changes that
    # component alone (or nothing); each case in a Profile of its own, read back from its table.
    r = run_scenario(tmp_path, """
        import json
        import numpy as np
        import ringprof

        def f(a, b, c):
            pass

        def base():
            return [np.zeros((2, 3), dtype=np.float32), 1, np.zeros(4, dtype=np.int8)]

        def changed(position, value):
            args = base()
            args[position] = value
            return args

        cases = {
            "nothing": base(),
            "first argument: type": changed(0, [0.0]),
            "first argument: dtype": changed(0, np.zeros((2, 3), dtype=np.float64)),
            "first argument: first dimension": changed(0, np.zeros((5, 3), dtype=np.float32)),
            "first argument: last dimension": changed(0, np.zeros((2, 5), dtype=np.float32)),
            "first argument: rank": changed(0, np.zeros((2, 3, 1), dtype=np.float32)),
            "middle argument: type": changed(1, 1.0),
            "last argument: dtype": changed(2, np.zeros(4, dtype=np.uint8)),
            "last argument: dimension": changed(2, np.zeros(6, dtype=np.int8)),
            "last argument: rank": changed(2, np.zeros((4, 1), dtype=np.int8)),
        }
        tables = {}
        for name, second in cases.items():
            p = ringprof.Profile()
            p.enable()
            f(*base())
            f(*second)
            p.disable()
            tables[name] = p.stats_table()
        print(json.dumps(tables))
    """).result()
    wrong = {}
    for case, table in r.items():
        _, _, rows = parse_table(table)
        f_rows = {label: ncalls for label, ncalls in rows.items() if label.startswith("scenario.py:6(f(")}
        expected = ["2"] if case == "nothing" else ["1", "1"]
        if sorted(f_rows.values()) != expected:
            wrong[case] = table
    assert not wrong, "\n".join("%s:\n%s" % item for item in wrong.items())
