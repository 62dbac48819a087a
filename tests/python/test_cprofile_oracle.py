"""ringprof.Profile against cProfile (the standard library's, the oracle accelerate's Profile
follows) on the same program: what getstats() returns, and the errors of the table."""
import json

from conftest import run_scenario

PROGRAM = """
import cProfile, json
import ringprof

def leaf(x):
    return x + 1

def caller(n):
    total = 0
    for i in range(n):
        total += leaf(i)
    return len([total])

def describe(entries):
    rows = {}
    for e in entries:
        python = not isinstance(e.code, str)
        key = e.code.co_name if python else e.code
        rows[key] = {"code_is_the_functions": python and e.code is globals()[key].__code__,
                     "code_type": type(e.code).__name__, "callcount": e.callcount,
                     "reccallcount": e.reccallcount, "calls": None if e.calls is None else
                     sorted(s.code.co_name if not isinstance(s.code, str) else s.code for s in e.calls),
                     "fields": len(e), "signature": getattr(e, "signature", None)}
    return rows

results = {}
for name, profile in (("cprofile", cProfile.Profile()), ("ringprof", ringprof.Profile(signatures=SIGNATURES))):
    profile.enable()
    caller(3)
    profile.disable()
    results[name] = describe(e for e in profile.getstats() if "disable" not in str(e.code))
print(json.dumps(results))
"""


def test_getstats_gives_cprofiles_code_objects_builtin_names_and_none_for_leaves(tmp_path):
    r = run_scenario(tmp_path, PROGRAM.replace("SIGNATURES", "False")).result()
    oracle, ours = r["cprofile"], r["ringprof"]
    assert set(ours) == set(oracle) == {"caller", "leaf", "<built-in method builtins.len>"}
    for key, want in oracle.items():
        got = dict(ours[key])
        assert got.pop("signature") == ""
        want = dict(want)
        want.pop("signature")
        assert got == want, key
    assert oracle["leaf"]["calls"] is None and oracle["leaf"]["code_is_the_functions"]


def test_getstats_puts_the_signature_in_its_own_field_with_signatures_on(tmp_path):
    r = run_scenario(tmp_path, PROGRAM.replace("SIGNATURES", "True")).result()
    oracle, ours = r["cprofile"], r["ringprof"]
    assert ours["leaf"]["signature"] == "(x:int)" and ours["caller"]["signature"] == "(n:int)"
    assert ours["leaf"]["code_is_the_functions"] and ours["caller"]["code_is_the_functions"]
    assert ours["<built-in method builtins.len>"]["signature"] == ""
    for key in oracle:
        assert ours[key]["callcount"] == oracle[key]["callcount"], key
        assert ours[key]["calls"] == oracle[key]["calls"], key


def test_an_unknown_sort_key_raises_keyerror_as_cprofiles_print_stats_does(tmp_path):
    r = run_scenario(tmp_path, """
        import cProfile, json
        import ringprof
        raised = {}
        for name, profile in (("cprofile", cProfile.Profile()), ("ringprof", ringprof.Profile())):
            profile.enable()
            len("x")
            profile.disable()
            try:
                profile.print_stats("no-such-key")
                raised[name] = None
            except Exception as e:
                raised[name] = [type(e).__name__, str(e)]
        print(json.dumps(raised))
    """).result()
    assert r["cprofile"][0] == "KeyError"
    assert r["ringprof"][0] == "KeyError" and "no-such-key" in r["ringprof"][1]


def test_signatures_of_star_args_and_star_star_kwargs_show_the_arguments_passed(tmp_path):
    # One function taking *args and **kwargs, called four ways: cProfile counts its calls in one
    # row; ringprof splits them by what was passed, and the rows add up to cProfile's count.
    r = run_scenario(tmp_path, """
        import cProfile, json
        import ringprof

        def copyto(dst, *args, **kwargs):
            return dst

        def program():
            copyto([], [1], 3, casting="same_kind")
            copyto([], [2], 4, casting="unsafe")
            copyto([], 1.0)
            copyto([], "1.0")
            copyto([])

        c = cProfile.Profile()
        c.enable()
        program()
        c.disable()
        p = ringprof.Profile()
        p.enable()
        program()
        p.disable()
        print(json.dumps({
            "cprofile": [e.callcount for e in c.getstats() if getattr(e.code, "co_name", "") == "copyto"],
            "ringprof": {e.signature: e.callcount for e in p.getstats()
                         if getattr(e.code, "co_name", "") == "copyto"}}))
    """).result()
    assert r["cprofile"] == [5]
    assert r["ringprof"] == {"(dst:list, *args:(list, int), **kwargs:{casting:str})": 2,
                             "(dst:list, *args:(float,), **kwargs:{})": 1,
                             "(dst:list, *args:(str,), **kwargs:{})": 1,
                             "(dst:list, *args:(), **kwargs:{})": 1}
    assert sum(r["ringprof"].values()) == r["cprofile"][0]


OWN_CALLS = """
import cProfile, json, warnings
import ringprof

def f():
    pass

def calls_of_f(profile):
    return sum(e.callcount for e in profile.getstats() if getattr(e.code, "co_name", "") == "f")

def rows(profile):
    return len([e for e in profile.getstats() if "disable" not in str(e.code)])

results = {}
for name, make in (("cprofile", cProfile.Profile), ("ringprof", ringprof.Profile)):
    never = make()
    f()
    p1, p2 = make(), make()
    p1.enable()
    for _ in range(10): f()
    p1.disable()
    with ringprof.scope("after_disable"):
        f()
    p2.enable()
    for _ in range(10): f()
    p2.disable()
    # Two on one thread: enabling the second ends the first's recording.
    q1, q2 = make(), make()
    q1.enable()
    for _ in range(5): f()
    q2.enable()
    for _ in range(3): f()
    q2.disable()
    f()
    q1.disable()
    results[name] = {"never": rows(never), "p1": calls_of_f(p1), "p2": calls_of_f(p2),
                     "q1": calls_of_f(q1), "q2": calls_of_f(q2),
                     "scope_after_disable": any("after_disable" in str(e.code) for e in p1.getstats())}
print(json.dumps(results))
"""


def test_each_profile_holds_exactly_the_calls_made_while_it_recorded_as_cprofile(tmp_path):
    r = run_scenario(tmp_path, OWN_CALLS).result()
    assert r["cprofile"] == {"never": 0, "p1": 10, "p2": 10, "q1": 5, "q2": 3, "scope_after_disable": False}
    assert r["ringprof"] == r["cprofile"]


def test_the_programs_own_profile_hook_is_put_back_after_disable_with_one_warning(tmp_path):
    r = run_scenario(tmp_path, """
        import cProfile, json, sys, warnings
        import ringprof

        seen = []
        def own_hook(frame, event, arg):
            if event == "call":
                seen.append(frame.f_code.co_name)

        def f():
            pass

        warnings.simplefilter("always")
        sys.setprofile(own_hook)
        p = ringprof.Profile()
        with warnings.catch_warnings(record=True) as caught:
            for _ in range(2):
                p.enable()
                f()
                p.disable()
        restored = sys.getprofile() is own_hook
        f()
        sys.setprofile(None)
        # With cProfile recording: ringprof's Profile suspends it, and disable() lets it go on.
        c = cProfile.Profile()
        c.enable()
        f()
        p.enable()
        f()
        p.disable()
        f()
        c.disable()
        cprofile_f = sum(e.callcount for e in c.getstats() if getattr(e.code, "co_name", "") == "f")
        print(json.dumps({"warnings": [str(w.message) for w in caught], "restored": restored,
                          "own_hook_saw_f_after": seen.count("f"), "cprofile_f": cprofile_f}))
    """).result()
    assert len(r["warnings"]) == 1 and "already has a profile hook" in r["warnings"][0]
    assert r["restored"] is True
    assert r["own_hook_saw_f_after"] >= 1
    assert r["cprofile_f"] == 2, "cProfile recorded before and after the Profile, not during"


def test_a_custom_timer_and_time_unit_time_the_table_as_in_cprofile(tmp_path):
    # A timer that advances one tick per reading: the same program gives the same times
    # wherever the readings are the same, so the two tables can be compared exactly.
    r = run_scenario(tmp_path, """
        import cProfile, io, itertools, json, pstats
        import ringprof

        def leaf():
            pass

        def work():
            for _ in range(3):
                leaf()

        results = {}
        for name, make in (("cprofile", lambda t: cProfile.Profile(t, 0.5)),
                           ("ringprof", lambda t: ringprof.Profile(custom_timer=t, time_unit=0.5))):
            profile = make(itertools.count().__next__)
            profile.enable()
            work()
            profile.disable()
            entries = {getattr(e.code, "co_name", e.code): [e.callcount, e.totaltime, e.inlinetime]
                       for e in profile.getstats()}
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("name").print_stats()
            table = [line.split() for line in out.getvalue().splitlines() if "(leaf)" in line or "(work)" in line]
            results[name] = {"entries": entries, "table": table}
        results["default_with_time_unit"] = len(ringprof.Profile(time_unit=1e-6).getstats())
        print(json.dumps(results))
    """).result()
    oracle, ours = r["cprofile"], r["ringprof"]
    assert oracle["entries"]["work"][1] > 0 and oracle["entries"]["leaf"][0] == 3
    assert ours["entries"]["work"] == oracle["entries"]["work"]
    assert ours["entries"]["leaf"] == oracle["entries"]["leaf"]
    assert [row[:5] for row in ours["table"]] == [row[:5] for row in oracle["table"]]
    assert r["default_with_time_unit"] == 0, "time_unit alone is accepted and ignored, as by cProfile"


def test_code_objects_sharing_one_file_line_and_name_are_entries_of_their_own_as_in_cprofile(tmp_path):
    r = run_scenario(tmp_path, """
        import cProfile, json
        import ringprof

        def program():
            first, second = (lambda: 1), (lambda: 2)
            for _ in range(3): first()
            for _ in range(5): second()
            return first, second

        results = {}
        for name, make in (("cprofile", cProfile.Profile), ("ringprof", ringprof.Profile)):
            p = make()
            p.enable()
            first, second = program()
            p.disable()
            by_code = {e.code: e.callcount for e in p.getstats() if not isinstance(e.code, str)}
            results[name] = [by_code.get(first.__code__), by_code.get(second.__code__)]
            p.create_stats()
            results[name + "_stats"] = sorted(v[1] for k, v in p.stats.items() if k[2].startswith("<lambda>"))
        print(json.dumps(results))
    """).result()
    assert r["cprofile"] == [3, 5]
    assert r["ringprof"] == r["cprofile"]
    # .stats (what pstats reads) has one entry per label: ringprof sums the two, as pstats merges
    # entries of one label; cProfile's own snapshot keeps whichever came last.
    assert r["ringprof_stats"] == [8] and len(r["cprofile_stats"]) == 1


THREADS = """
import cProfile, json, threading
import ringprof

def f():
    pass

def g():
    pass

def calls(profile, fn):
    return sum(e.callcount for e in profile.getstats() if getattr(e.code, "co_name", "") == fn)

def has_row(profile, text):
    return any(text in str(e.code) for e in profile.getstats())

def run(target, *args):
    t = threading.Thread(target=target, args=args)
    t.start()
    t.join()

def other_thread():
    with ringprof.scope("scope_on_another_thread"):
        for _ in range(10): g()

results = {}
for name, make in (("cprofile", cProfile.Profile), ("ringprof", ringprof.Profile)):
    # Another thread's calls and scopes while p records the main thread.
    p = make()
    p.enable()
    run(other_thread)
    for _ in range(4): f()
    p.disable()
    # A Profile on each of two threads, recording at the same time.
    barrier = threading.Barrier(2)
    def records(profile, n):
        profile.enable()
        barrier.wait()
        for _ in range(n): f()
        barrier.wait()
        profile.disable()
    pa, pb = make(), make()
    ta = threading.Thread(target=records, args=(pa, 7))
    tb = threading.Thread(target=records, args=(pb, 11))
    ta.start(); tb.start(); ta.join(); tb.join()
    # A thread that ends with its Profile still enabled: what it recorded is kept.
    pe = make()
    def ends_enabled():
        pe.enable()
        for _ in range(6): f()
    run(ends_enabled)
    results[name] = {"p_f": calls(p, "f"), "p_g": calls(p, "g"),
                     "p_other_scope": has_row(p, "scope_on_another_thread"),
                     "pa_f": calls(pa, "f"), "pb_f": calls(pb, "f"), "pe_f": calls(pe, "f")}
print(json.dumps(results))
"""


def test_a_profile_records_only_the_threads_it_was_enabled_on_as_cprofile(tmp_path):
    r = run_scenario(tmp_path, THREADS).result()
    assert r["cprofile"] == {"p_f": 4, "p_g": 0, "p_other_scope": False, "pa_f": 7, "pb_f": 11, "pe_f": 6}
    assert r["ringprof"] == r["cprofile"]
