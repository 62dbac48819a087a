"""ringprof.Profile as a cProfile user meets it: the same rows, names and call counts as
cProfile on the same program (times aside), enable()'s arguments honoured, and dump_stats /
create_stats files that the standard library's pstats loads, sorts and prints with callers."""
import re

import pytest

from conftest import require_module, run_scenario
from test_profile import parse_table

# The seed's example (accelerate's profiler page), run under cProfile and ringprof.Profile in
# each setting; `builtins` given to the constructor, to enable(), or both.
SEED_PROGRAM = """
    import cProfile, io, json, pstats
    import numpy as np
    import ringprof

    def dot(a, b):
        sum=0
        for i in range(len(a)):
            sum += a[i]*b[i]
        return sum

    a = np.arange(16, dtype=np.float32)
    b = np.arange(16, dtype=np.float32)

    def table(profile):
        out = io.StringIO()
        pstats.Stats(profile, stream=out).strip_dirs().sort_stats(-1).print_stats()  # cProfile.print_stats()
        return out.getvalue()

    results = []
    for made_with, enabled_with in ((None, None), (True, False), (False, None), (False, True)):
        made = {} if made_with is None else {"builtins": made_with}
        enabled = {} if enabled_with is None else {"builtins": enabled_with}
        c = cProfile.Profile(**made)
        c.enable(**enabled)
        dot(a, b)
        c.disable()
        tables = {"cprofile": table(c)}
        for signatures in (False, True):
            p = ringprof.Profile(signatures=signatures, **made)
            p.enable(**enabled)
            dot(a, b)
            p.disable()
            tables[str(signatures)] = p.stats_table()
        results.append([made_with, enabled_with, tables])
    print(json.dumps(results))
"""

# The profiler's own disable(), named after each profiler's class.
CPROFILE_DISABLE = "{method 'disable' of '_lsprof.Profiler' objects}"
RINGPROF_DISABLE = "{method 'disable' of 'ringprof.Profile' objects}"
DOT_SIGNATURE = "(a:ndarray(dtype=float32, shape=(16,)), b:ndarray(dtype=float32, shape=(16,)))"


def without_signature(name):
    """scenario.py:6(dot(a:..., b:...)) -> scenario.py:6(dot)"""
    m = re.match(r"^(.+:\d+\(\w+)\(.*\)\)$", name)
    return m.group(1) + ")" if m else name


@pytest.fixture(scope="module")
def seed_results(tmp_path_factory):
    require_module("numpy")
    return run_scenario(tmp_path_factory.mktemp("seed"), SEED_PROGRAM).result()


def test_the_seed_example_gives_cprofiles_rows_names_and_call_counts_in_every_builtins_setting(seed_results):
    for made_with, enabled_with, tables in seed_results:
        setting = "Profile(builtins=%r).enable(builtins=%r)" % (made_with, enabled_with)
        c_calls, c_primitive, c_rows = parse_table(tables["cprofile"])
        calls, primitive, rows = parse_table(tables["False"])
        renamed = {CPROFILE_DISABLE if name == RINGPROF_DISABLE else name: n for name, n in rows.items()}
        assert renamed == c_rows, setting
        assert (calls, primitive) == (c_calls, c_primitive), setting
        # The setting really changed something: built-ins are rows exactly when it says so.
        builtins = enabled_with if enabled_with is not None else made_with if made_with is not None else True
        assert ("{built-in method builtins.len}" in rows) == builtins, setting
        assert (RINGPROF_DISABLE in rows) == builtins, setting


def test_with_signatures_the_rows_are_cprofiles_with_each_signature_appended(seed_results):
    for made_with, enabled_with, tables in seed_results:
        _, _, c_rows = parse_table(tables["cprofile"])
        _, _, rows = parse_table(tables["True"])
        assert "scenario.py:6(dot%s)" % DOT_SIGNATURE in rows
        stripped = {CPROFILE_DISABLE if name == RINGPROF_DISABLE else without_signature(name): n
                    for name, n in rows.items()}
        assert stripped == c_rows, (made_with, enabled_with)


# cProfile and ringprof.Profile on one program, their create_stats() dicts and dump_stats files.
STATS_PROGRAM = """
    import cProfile, io, json, pstats
    import numpy as np
    import ringprof

    def dot(a, b):
        sum=0
        for i in range(len(a)):
            sum += a[i]*b[i]
        return sum

    def main():
        x = dot(np.arange(16, dtype=np.float32), np.arange(16, dtype=np.float32))
        y = dot(np.arange(8, dtype=np.float64), np.arange(8, dtype=np.float64))
        [].append(x + y)

    def as_json(stats):
        return [[list(k), list(v[:4]), sorted([list(ck), list(cv)] for ck, cv in v[4].items())]
                for k, v in sorted(stats.items())]

    def printed(path, sort):
        out = io.StringIO()
        s = pstats.Stats(path, stream=out)
        s.sort_stats(sort).print_stats()
        s.print_callers()
        return out.getvalue()

    SUBCALLS = SUBCALLS_VALUE
    c = cProfile.Profile()
    c.enable(subcalls=SUBCALLS)
    main()
    c.disable()
    c.dump_stats("cprofile.prof")
    results = {}
    for signatures in (False, True):
        p = ringprof.Profile(signatures=signatures)
        p.enable(subcalls=SUBCALLS)
        main()
        p.disable()
        p.create_stats()
        first = as_json(p.stats)
        p.dump_stats("ringprof_%s.prof" % signatures)  # create_stats() again, then writes .stats
        results[str(signatures)] = {"first": first, "created": as_json(p.stats),
                                    "loaded": as_json(pstats.Stats("ringprof_%s.prof" % signatures).stats),
                                    "printed": printed("ringprof_%s.prof" % signatures, "cumulative")}
    results["cprofile"] = {"loaded": as_json(pstats.Stats("cprofile.prof").stats)}
    print(json.dumps(results))
"""


def stats_program(subcalls):
    return STATS_PROGRAM.replace("SUBCALLS_VALUE", repr(subcalls))


def counts_only(stats_json, rename=lambda name: name):
    """{(file, line, name): (primitive calls, calls, {caller: (calls, primitive calls)})}: the
    stats dict with times left out."""
    def key(k):
        return (k[0], k[1], rename(k[2]))
    return {key(k): (v[0], v[1], {key(ck): tuple(cv[:2]) for ck, cv in callers}) for k, v, callers in stats_json}


def ringprof_name(name):
    return "<method 'disable' of '_lsprof.Profiler' objects>" if name == \
        "<method 'disable' of 'ringprof.Profile' objects>" else name


@pytest.fixture(scope="module")
def stats_results(tmp_path_factory):
    require_module("numpy")
    return run_scenario(tmp_path_factory.mktemp("stats"), stats_program(True)).result()


def test_dump_stats_holds_cprofiles_entries_and_callers_and_pstats_loads_it(stats_results):
    ours = stats_results["False"]
    assert ours["loaded"] == ours["created"], "the file holds what create_stats() made"
    # The same calls each time; their seconds may move in the last digits when the session's clock
    # calibration refines its rate between the two readings.
    assert counts_only(ours["first"]) == counts_only(ours["created"])
    assert counts_only(ours["loaded"], ringprof_name) == counts_only(stats_results["cprofile"]["loaded"])
    # Callers are there: len is called by dot, dot by main.
    loaded = counts_only(ours["loaded"])
    dot = [k for k in loaded if k[2] == "dot"][0]
    assert loaded[("~", 0, "<built-in method builtins.len>")][2] == {dot: (2, 2)}
    assert [k[2] for k in loaded[dot][2]] == ["main"]


def test_pstats_sorts_and_prints_a_dump_stats_file_with_its_callers(stats_results):
    printed = stats_results["False"]["printed"]
    assert "Ordered by: cumulative time" in printed
    assert "was called by..." in printed
    lines = printed.splitlines()
    callers = lines[[i for i, line in enumerate(lines) if "was called by..." in line][0]:]
    len_line = [line for line in callers if line.startswith("{built-in method builtins.len}")]
    assert len_line and len_line[0].split("<-")[1].split()[0] == "2" and "(dot)" in len_line[0]


def test_with_signatures_each_signature_is_its_own_pstats_entry_named_with_it(stats_results):
    loaded = counts_only(stats_results["True"]["loaded"])
    dots = sorted(k[2] for k in loaded if k[2].startswith("dot("))
    assert dots == ["dot(a:ndarray(dtype=float32, shape=(16,)), b:ndarray(dtype=float32, shape=(16,)))",
                    "dot(a:ndarray(dtype=float64, shape=(8,)), b:ndarray(dtype=float64, shape=(8,)))"]
    for name in dots:
        key = [k for k in loaded if k[2] == name][0]
        assert loaded[key][:2] == (1, 1)
        assert loaded[("~", 0, "<built-in method builtins.len>")][2][key] == (1, 1)
    # Merged over signatures, the entries are cProfile's.
    merged = {}
    for (f, line, name), (cc, nc, _) in loaded.items():
        key = (f, line, ringprof_name(name) if f == "~" else name.split("(")[0])
        before = merged.get(key, (0, 0))
        merged[key] = (before[0] + cc, before[1] + nc)
    assert merged == {k: v[:2] for k, v in counts_only(stats_results["cprofile"]["loaded"]).items()}


def test_subcalls_off_leaves_the_callers_out_as_cprofile_does(tmp_path):
    require_module("numpy")
    r = run_scenario(tmp_path, stats_program(False)).result()
    ours = counts_only(r["False"]["loaded"], ringprof_name)
    assert ours == counts_only(r["cprofile"]["loaded"])
    assert all(not callers for _, _, callers in ours.values())


def test_print_stats_takes_every_sort_key_pstats_takes_and_refuses_the_others(tmp_path):
    r = run_scenario(tmp_path, """
        import io, json, pstats
        import ringprof

        def work(n):
            return [len("x") for _ in range(n)]

        class Defaults(pstats.Stats):       # every spelling pstats' own sort_stats accepts
            def __init__(self):
                self.sort_arg_dict = {}
        keys = sorted(Defaults().get_sort_arg_defs()) + list(pstats.SortKey) + [-1, 0, 1, 2]

        p = ringprof.Profile()
        p.enable()
        work(3)
        p.disable()
        ordered = {}
        for key in keys:
            ours = [line.strip() for line in p.stats_table(key).splitlines() if "Ordered by" in line]
            ordered[repr(key)] = ours + ["Ordered by: " + pstats.Stats().sort_stats(key).sort_type]
        refused = {}
        for bad in ("cum", "c", "bogus", 7, -2):
            try:
                p.print_stats(bad)
                refused[repr(bad)] = None
            except KeyError as e:  # as cProfile's print_stats
                refused[repr(bad)] = str(e)
        print(json.dumps({"ordered": ordered, "refused": refused}))
    """).result()
    assert len(r["ordered"]) > 60
    for key, lines in r["ordered"].items():
        assert len(lines) == 2 and lines[0] == lines[1], key
    for key, message in r["refused"].items():
        assert message and "unknown sort key" in message, key


def test_the_profilers_own_layer_makes_no_rows_only_its_c_methods_as_cprofiles_do(tmp_path):
    r = run_scenario(tmp_path, """
        import cProfile, json, os, ringprof

        def work():
            return sorted([3, 1, 2])

        def session(p):
            with p:
                work()
            p.enable()
            try:
                p.enable()                   # already on: a call of the profiler's enable
            except ValueError:               # cProfile from 3.12 refuses a second enable()
                pass
            p.getstats()
            work()
            p.disable()
            p.create_stats()
            return {"%s:%d(%s)" % k: v[1] for k, v in p.stats.items()}

        print(json.dumps({"ringprof": session(ringprof.Profile(signatures=False)),
                          "cprofile": session(cProfile.Profile()),
                          "package": os.path.dirname(ringprof.__file__),
                          "cprofile_file": cProfile.__file__}))
    """).result()
    ours = r["ringprof"]
    assert not [name for name in ours if name.startswith(r["package"])], ours
    # cProfile's Python layer (its __exit__) is a row of cProfile's; ringprof's is none of ours.
    theirs = {name.replace("'_lsprof.Profiler'", "'ringprof.Profile'"): n for name, n in r["cprofile"].items()
              if not name.startswith(r["cprofile_file"])}
    assert ours == theirs
    assert ours["~:0(<method 'disable' of 'ringprof.Profile' objects>)"] == 2
    assert ours["~:0(<method 'getstats' of 'ringprof.Profile' objects>)"] == 1
