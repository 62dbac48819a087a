"""ringprof.scope / function / step / gauge / flush / enable / disable / add_metadata, and
Python scopes nesting with the C++ PROF_SCOPEs of a separately built extension module."""
import json

import pytest

from conftest import child, path, run_scenario


def gauges_of(timers):
    g = timers.get("gauges", {})
    return {x["name"]: x for x in g} if isinstance(g, list) else g


def test_python_scopes_and_cpp_scopes_of_an_extension_nest_in_one_tree(tmp_path, kernels):
    run = run_scenario(tmp_path, """
        import ringprof, test_kernels
        for i in range(5):
            with ringprof.scope("train"):
                test_kernels.kernel(10)
        def python_inside_cpp():
            with ringprof.scope("python_inside_cpp"):
                pass
        with ringprof.scope("callback_test"):
            test_kernels.call_back(python_inside_cpp)
    """, extra_path=[kernels])
    root = run.timers()
    train = path(root, "train")
    assert train["count"] == 5
    assert path(train, "cpp_kernel")["count"] == 5
    assert path(train, "cpp_kernel", "cpp_inner")["count"] == 50
    assert path(root, "callback_test", "cpp_callback", "python_inside_cpp")["count"] == 1
    # Nothing of the extension landed at the root: one engine, one nesting.
    assert child(root, "cpp_kernel") is None and child(root, "cpp_inner") is None


def test_python_and_cpp_scopes_share_one_timeline(tmp_path, kernels):
    run = run_scenario(tmp_path, """
        import ringprof, test_kernels
        for step in range(3):
            with ringprof.step(step):
                with ringprof.scope("train"):
                    test_kernels.kernel(2)
    """, extra_path=[kernels])
    events = [e for e in run.trace_events() if e.get("ph") == "X"]
    trains = [e for e in events if e["name"] == "train"]
    kernels_ = [e for e in events if e["name"] == "cpp_kernel"]
    assert len(trains) == 3 and len(kernels_) == 3
    for train, kernel in zip(sorted(trains, key=lambda e: e["ts"]), sorted(kernels_, key=lambda e: e["ts"])):
        assert kernel["tid"] == train["tid"] and kernel["pid"] == train["pid"]
        assert train["ts"] <= kernel["ts"] and kernel["ts"] + kernel["dur"] <= train["ts"] + train["dur"]
        assert kernel["args"]["step"] == train["args"]["step"]
    assert sorted(e["args"]["step"] for e in trains) == [0, 1, 2]


def test_threads_started_from_python_are_threads_like_any_other(tmp_path, kernels):
    run = run_scenario(tmp_path, """
        import json, threading, ringprof, test_kernels
        tids = []
        def worker():
            tids.append(threading.get_native_id())
            for i in range(1000):
                with ringprof.scope("py_work"):
                    if i % 100 == 0:
                        test_kernels.kernel(1)
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(json.dumps(tids))
    """, extra_path=[kernels])
    work = path(run.timers(), "py_work")
    assert work["count"] == 4000, "every scope of every thread is counted"
    assert work.get("is_parallel") is True
    assert path(work, "cpp_kernel")["count"] == 40
    assert path(work, "cpp_kernel", "cpp_inner")["count"] == 40
    span_tids = {e["tid"] for e in run.trace_events() if e.get("name") == "py_work"}
    assert span_tids == set(run.result())


def test_disable_stops_python_and_cpp_scopes_alike_and_enable_resumes(tmp_path, kernels):
    run = run_scenario(tmp_path, """
        import ringprof, test_kernels
        with ringprof.scope("on"): test_kernels.kernel(1)
        ringprof.disable()
        assert not ringprof.is_enabled()
        with ringprof.scope("on"): test_kernels.kernel(1)
        with ringprof.scope("off"): pass
        ringprof.enable()
        with ringprof.scope("on"): test_kernels.kernel(1)
    """, extra_path=[kernels])
    root = run.timers()
    assert path(root, "on")["count"] == 2
    assert path(root, "on", "cpp_kernel")["count"] == 2
    assert child(root, "off") is None


def test_function_decorator_names_the_timer_after_qualname_and_the_row_after_file_and_line(tmp_path):
    run = run_scenario(tmp_path, """
        import ringprof
        class Trainer:
            @ringprof.function
            def advance(self):
                return 1
        @ringprof.function(name="custom")
        def g():
            return Trainer().advance()
        for _ in range(3): g()
    """)
    assert path(run.timers(), "custom", "Trainer.advance")["count"] == 3
    with open(run.path("stats.json")) as f:
        stats = json.load(f)
    rows = stats["functions"] if isinstance(stats, dict) else stats
    advance = [r for r in rows if r["name"] == "Trainer.advance"]
    assert len(advance) == 1
    assert advance[0]["file"].endswith("scenario.py") and advance[0]["line"] == 4


def test_gauges_keep_value_min_max_and_count(tmp_path):
    run = run_scenario(tmp_path, """
        import ringprof
        for v in (3.0, 1, 2.5):
            ringprof.gauge("loss", v)
    """)
    loss = gauges_of(run.timers())["loss"]
    assert (loss["value"], loss["min"], loss["max"], loss["count"]) == (2.5, 1.0, 3.0, 3)


def test_metadata_and_flush_write_the_files_while_running(tmp_path):
    run = run_scenario(tmp_path, """
        import json, os, ringprof
        ringprof.add_metadata("experiment", "a1")
        with ringprof.scope("before_flush"): pass
        ringprof.flush()
        with open(os.environ["RINGPROF_OUTPUT_DIR"] + "/scenario_timers.json") as f:
            t = json.load(f)
        print(json.dumps([c["name"] for c in t["children"]]))
    """)
    assert run.result() == ["before_flush"]
    assert run.timers()["metadata"]["experiment"] == "a1"


def test_a_name_is_interned_once_and_a_scope_allocates_nothing_after_the_first_call(tmp_path):
    run = run_scenario(tmp_path, """
        import json, sys, ringprof
        from ringprof import _ringprof
        same = ringprof.scope("hot") is ringprof.scope("hot")
        name = "".join(["h", "ot"])          # an equal name that is another str object
        equal = ringprof.scope(name) is ringprof.scope("hot")
        with ringprof.scope("hot"): pass     # first use: ring, session, interned site
        ringprof.gauge("g", 1.0)
        sites = _ringprof._interned_site_count()
        blocks = sys.getallocatedblocks()
        for i in range(100000):
            with ringprof.scope("hot"):
                with ringprof.scope(name):
                    ringprof.gauge("g", 2.0)
        grown = sys.getallocatedblocks() - blocks
        print(json.dumps([same, equal, _ringprof._interned_site_count() - sites, grown]))
    """)
    same, equal, new_sites, grown_blocks = run.result()
    assert same and equal
    assert new_sites == 0
    assert grown_blocks < 20, "a scope allocated Python objects per call (%d blocks grew)" % grown_blocks
    assert path(run.timers(), "hot", "hot")["count"] == 100000


def test_errors_are_python_exceptions_with_clear_messages(tmp_path):
    run = run_scenario(tmp_path, """
        import json, ringprof
        def error_of(f):
            try:
                f()
            except Exception as e:
                return [type(e).__name__, str(e)]
            return None
        results = {
            "not_str": error_of(lambda: ringprof.scope(42)),
            "empty": error_of(lambda: ringprof.scope("")),
            "nul": error_of(lambda: ringprof.scope("a\\0b")),
            "gauge_value": error_of(lambda: ringprof.gauge("loss", "high")),
            "gauge_args": error_of(lambda: ringprof.gauge("loss")),
            "step_mode": error_of(lambda: ringprof.step(1, "TRAINING")),
            "step_number": error_of(lambda: ringprof.step("1")),
            "metadata": error_of(lambda: ringprof.add_metadata("k", 3)),
            "construct": error_of(lambda: type(ringprof.scope("x"))()),
            "decorate": error_of(lambda: ringprof.function(3)),
        }
        with ringprof.scope("after_errors"): pass
        print(json.dumps(results))
    """)
    r = run.result()
    assert r["not_str"] == ["TypeError", "ringprof.scope: the name must be a str, not int"]
    assert r["empty"][0] == "ValueError" and "empty" in r["empty"][1]
    assert r["nul"][0] == "ValueError" and "NUL" in r["nul"][1]
    assert r["gauge_value"][0] == "TypeError" and "str" in r["gauge_value"][1]
    assert r["gauge_args"][0] == "TypeError"
    assert r["step_mode"][0] == "ValueError" and "TRAINING" in r["step_mode"][1]
    assert r["step_number"][0] == "TypeError"
    assert r["metadata"][0] == "TypeError"
    assert r["construct"][0] == "TypeError"
    assert r["decorate"][0] == "TypeError"
    # The refused operations left the thread's nesting intact.
    root = run.timers()
    assert path(root, "after_errors")["count"] == 1


def test_scopes_closed_twice_or_out_of_order_never_raise_and_keep_the_nesting(tmp_path):
    run = run_scenario(tmp_path, """
        import json, ringprof
        raised = []
        def call(f):
            try:
                f()
            except Exception as e:
                raised.append(repr(e))
        s = ringprof.scope("twice")
        with s:
            pass
        call(lambda: s.__exit__(None, None, None))       # closed twice: ignored
        with ringprof.scope("outer"):
            a, b = ringprof.scope("a"), ringprof.scope("b")
            a.__enter__(); b.__enter__()
            call(lambda: a.__exit__(None, None, None))   # out of order: a closes where it opened
            with ringprof.scope("inside_b"):
                pass
            call(lambda: b.__exit__(None, None, None))
        with ringprof.scope("after"):
            pass
        print(json.dumps(raised))
    """)
    assert run.result() == []
    root = run.timers()
    outer = path(root, "outer")
    assert path(outer, "a")["count"] == 1
    assert path(outer, "b")["count"] == 1, "b ran in outer, not in a"
    assert path(outer, "b", "inside_b")["count"] == 1
    assert child(path(outer, "a"), "b") is None
    assert path(root, "twice")["count"] == 1
    assert path(root, "after")["count"] == 1
    assert int(root["metadata"]["misnested_scopes"]) == 1


def test_scopes_held_across_await_in_interleaved_asyncio_tasks(tmp_path):
    run = run_scenario(tmp_path, """
        import asyncio, json, ringprof
        raised = []
        async def request(i, gate):
            try:
                with ringprof.scope("request"):
                    await gate.wait()            # the other task runs its own with-block meanwhile
                    with ringprof.scope("handle"):
                        pass
            except Exception as e:
                raised.append(repr(e))
        async def main():
            for _ in range(50):
                first, second = asyncio.Event(), asyncio.Event()
                t1 = asyncio.create_task(request(1, first))
                t2 = asyncio.create_task(request(2, second))
                await asyncio.sleep(0)           # both are inside "request" now, t2 innermost
                first.set()                      # t1 leaves its "request" first: out of order
                await asyncio.sleep(0)
                second.set()
                await asyncio.gather(t1, t2)
        asyncio.run(main())
        with ringprof.scope("after"):
            pass
        print(json.dumps(raised))
    """)
    assert run.result() == [], "ringprof raised into the tasks"
    root = run.timers()
    request = path(root, "request")
    assert request["count"] == 100, "every task's scope is closed, once"
    assert child(request, "request") is None, "a waiting task's scope held the other task's"
    assert path(root, "after")["count"] == 1, "nothing stays open after the tasks"
    # The scopes are shown where they were opened; those closed out of order are counted.
    assert int(root["metadata"]["misnested_scopes"]) > 0


def test_threads_that_adopt_a_captured_context_nest_under_the_scope_that_started_them(tmp_path):
    # ML-Agents' threaded trainer (TrainerController: trainer_threads/thread_root/trainer_advance),
    # with C++'s capture_context / AdoptContext instead of merging each thread's stack by hand.
    run = run_scenario(tmp_path, """
        import json, threading, ringprof
        with ringprof.scope("trainer_threads"):
            ctx = ringprof.capture_context()
            both_started = threading.Barrier(2)
            def trainer(advances):
                with ringprof.AdoptContext(ctx), ringprof.scope("thread_root"):
                    both_started.wait()
                    for i in range(advances):
                        with ringprof.scope("trainer_advance"):
                            pass
                with ringprof.scope("after_adopting"):  # the thread's own root again
                    pass
            threads = [threading.Thread(target=trainer, args=(10,)) for _ in range(2)]
            for t in threads: t.start()
            for t in threads: t.join()
        try:
            ringprof.AdoptContext("not a context")
            refused = None
        except TypeError as e:
            refused = str(e)
        print(json.dumps({"tree": ringprof.timer_tree(), "refused": refused, "id": ctx.id}))
    """)
    for tree in (run.timers(), run.result()["tree"]):
        thread_root = path(tree, "trainer_threads", "thread_root")
        assert thread_root["count"] == 2 and thread_root.get("is_parallel") is True
        advance = path(thread_root, "trainer_advance")
        assert advance["count"] == 20 and advance.get("is_parallel") is True
        assert child(tree, "trainer_advance") is None and child(tree, "thread_root") is None
        assert path(tree, "after_adopting")["count"] == 2
    assert run.result()["id"] != 0
    assert "ringprof.Context" in run.result()["refused"]
