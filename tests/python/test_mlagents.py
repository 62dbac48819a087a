"""ringprof.mlagents against ML-Agents' semantics (mlagents_envs.timers): names, counts, nesting,
is_parallel, gauges, metadata, reset. The expected trees are those ML-Agents' own timers give
for the same programs (its unit-test scenario; its subprocess workers merged under
workers/worker_root)."""
import json

from conftest import run_scenario

ANY = object()


def shape(tree):
    """A get_timer_tree() dict (dict children) reduced to what must match: name -> (count,
    is_parallel, children)."""
    return {name: (node["count"], node.get("is_parallel", False), shape(node))
            for name, node in tree.get("children", {}).items()}


def test_the_unit_test_scenario_gives_mlagents_tree_names_counts_nesting_and_gauges(tmp_path):
    run = run_scenario(tmp_path, """
        import json, math
        from ringprof.mlagents import hierarchical_timer, timed, set_gauge, get_timer_tree

        @timed
        def decorated_func(x: int = 0, y: float = 1.0) -> str:
            return f"{x} + {y} = {x + y}"

        with hierarchical_timer("top_level"):
            for i in range(3):
                with hierarchical_timer("multiple"):
                    decorated_func()
            raised = False
            try:
                with hierarchical_timer("raises"):
                    raise RuntimeError("timeout!")
            except RuntimeError:
                raised = True
            with hierarchical_timer("post_raise"):
                assert raised
        set_gauge("my_gauge", 0.0)
        set_gauge("my_gauge", math.nan)      # ignored, as ML-Agents does
        set_gauge("my_gauge", 4.0)
        set_gauge("my_gauge", 2.0)
        set_gauge("my_gauge", 4.0)
        print(json.dumps(get_timer_tree()))
    """)
    tree = run.result()
    assert tree["name"] == "root" and tree["count"] == 1
    assert shape(tree) == {"top_level": (1, False, {
        "multiple": (3, False, {"decorated_func": (3, False, {})}),
        "raises": (1, False, {}),
        "post_raise": (1, False, {})})}
    assert list(tree["children"]["top_level"]["children"]) == ["multiple", "raises", "post_raise"]
    assert "is_parallel" not in tree["children"]["top_level"], "is_parallel appears only when true"
    assert "children" not in tree["children"]["top_level"]["children"]["raises"], "children only when any"
    assert tree["gauges"] == {"my_gauge": {"value": 4.0, "min": 0.0, "max": 4.0, "count": 4}}
    for key in ("timer_format_version", "start_time_seconds", "end_time_seconds", "python_version"):
        assert key in tree["metadata"]
    # self = max(0, total - children's totals), as ML-Agents computes it.
    top = tree["children"]["top_level"]
    assert abs(top["self"] - max(0.0, top["total"] - sum(c["total"] for c in top["children"].values()))) < 1e-12
    assert tree["total"] >= top["total"]
    # The process's timers file says the same.
    timers = run.timers()
    top_file = [c for c in timers["children"] if c["name"] == "top_level"][0]
    assert [(c["name"], c["count"]) for c in top_file["children"]] == [("multiple", 3), ("raises", 1), ("post_raise", 1)]


def test_worker_processes_merged_under_workers_worker_root_are_parallel(tmp_path):
    # ML-Agents' SubprocessEnvManager: each worker sends get_timer_root() after every step and
    # resets its timers; the main process merges the trees inside `with hierarchical_timer("workers")`.
    run = run_scenario(tmp_path, """
        import json, multiprocessing
        from ringprof.mlagents import hierarchical_timer, get_timer_root, reset_timers, get_timer_tree

        def worker(conn):
            for step in range(2):
                conn.recv()
                with hierarchical_timer("UnityEnvironment.step"):
                    with hierarchical_timer("communicator.exchange"):
                        pass
                conn.send(get_timer_root())
                reset_timers()
            conn.close()

        ctx = multiprocessing.get_context("fork")
        pipes, procs = [], []
        for _ in range(2):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=worker, args=(child,))
            p.start()
            pipes.append(parent); procs.append(p)
        for step in range(2):
            with hierarchical_timer("env_step"):
                for conn in pipes: conn.send("step")
                roots = [conn.recv() for conn in pipes]
                with hierarchical_timer("workers") as main_timer_node:
                    for root in roots:
                        main_timer_node.merge(root, root_name="worker_root", is_parallel=True)
        for p in procs: p.join(60)
        print(json.dumps(get_timer_tree()))
    """)
    tree = run.result()
    assert shape(tree) == {"env_step": (2, False, {"workers": (2, False, {"worker_root": (4, True, {
        "UnityEnvironment.step": (4, True, {"communicator.exchange": (4, True, {})})})})})}
    # The engine grafted the same trees: the process's timers file has them too.
    from conftest import path
    worker_root = path(run.timers(), "env_step", "workers", "worker_root")
    assert worker_root["count"] == 4 and worker_root["is_parallel"] is True
    assert path(worker_root, "UnityEnvironment.step", "communicator.exchange")["count"] == 4


def test_reset_timers_forgets_timers_and_gauges_and_restarts_the_root_time(tmp_path):
    run = run_scenario(tmp_path, """
        import json, time
        from ringprof.mlagents import hierarchical_timer, set_gauge, get_timer_tree, reset_timers
        with hierarchical_timer("before"):
            time.sleep(0.05)
        set_gauge("g", 1.0)
        reset_timers()
        after_reset = get_timer_tree()
        with hierarchical_timer("after"):
            pass
        print(json.dumps([after_reset, get_timer_tree()]))
    """)
    after_reset, later = run.result()
    assert "children" not in after_reset and "gauges" not in after_reset
    assert after_reset["total"] < 0.05, "the root's time starts again at the reset"
    assert shape(later) == {"after": (1, False, {})}


def test_reset_timers_forgets_the_worker_trees_merged_before_it(tmp_path):
    # A trainer that resets after merging workers' trees: ML-Agents' tree after the reset holds
    # only what ran since, and a worker tree merged before the reset never comes back.
    run = run_scenario(tmp_path, """
        import json
        from ringprof.mlagents import hierarchical_timer, get_timer_tree, reset_timers, TimerNode
        worker = TimerNode()
        worker.add_time(0.3)
        worker.get_child("worker_step").add_time(0.25)
        with hierarchical_timer("workers") as node:
            node.merge(worker, root_name="worker_root", is_parallel=True)
        before = get_timer_tree()
        reset_timers()
        after_reset = get_timer_tree()
        with hierarchical_timer("after"):
            pass
        print(json.dumps([before, after_reset, get_timer_tree()]))
    """)
    before, after_reset, later = run.result()
    assert shape(before) == {"workers": (1, False, {"worker_root": (1, True, {"worker_step": (1, True, {})})})}
    assert "children" not in after_reset
    assert shape(later) == {"after": (1, False, {})}


def test_each_thread_has_its_own_tree_as_in_mlagents(tmp_path):
    run = run_scenario(tmp_path, """
        import json, threading
        from ringprof.mlagents import hierarchical_timer, get_timer_tree
        seen = {}
        def work():
            with hierarchical_timer("in_thread"):
                pass
            seen["thread"] = get_timer_tree()
        with hierarchical_timer("in_main"):
            t = threading.Thread(target=work); t.start(); t.join()
        print(json.dumps([get_timer_tree(), seen["thread"]]))
    """)
    main, thread = run.result()
    assert shape(main) == {"in_main": (1, False, {})}
    assert shape(thread) == {"in_thread": (1, False, {})}


def test_private_timer_stacks_and_bad_merges_are_refused_with_exceptions(tmp_path):
    run = run_scenario(tmp_path, """
        import json
        from ringprof.mlagents import hierarchical_timer, set_gauge, get_timer_tree
        errors = []
        for f in (lambda: hierarchical_timer("x", timer_stack=object()),
                  lambda: set_gauge("g", 1.0, timer_stack=object()),
                  lambda: get_timer_tree(timer_stack=object())):
            try:
                f()
            except ValueError as e:
                errors.append(str(e))
        with hierarchical_timer("workers") as node:
            try:
                node.merge({"total": 1})
            except TypeError as e:
                errors.append(str(e))
        print(json.dumps(errors))
    """)
    errors = run.result()
    assert len(errors) == 4
    assert "timer_stack" in errors[0] and "TimerNode" in errors[3]


def test_a_merge_inside_a_profiled_call_lands_under_that_call(tmp_path):
    run = run_scenario(tmp_path, """
        import json, ringprof
        from ringprof.mlagents import hierarchical_timer, get_timer_tree, TimerNode
        worker = TimerNode()
        worker.count = 1                 # as get_timer_root() gives it
        worker.get_child("step").add_time(0.5)
        def collect():
            with hierarchical_timer("workers") as node:
                node.merge(worker, root_name="worker_root")
        p = ringprof.Profile(builtins=False, signatures=False)
        p.enable()
        collect()
        p.disable()
        print(json.dumps(get_timer_tree()))
    """)
    tree = run.result()

    def find(node, name):  # the node `name` anywhere below `node` (dict children)
        for child_name, child in node.get("children", {}).items():
            if child_name == name:
                return child
            found = find(child, name)
            if found is not None:
                return found
        return None

    workers = find(tree, "workers")
    assert workers is not None and find(tree["children"]["collect"], "workers") is workers
    worker_root = find(workers, "worker_root")
    assert (worker_root["count"], worker_root["is_parallel"]) == (1, True)
    assert shape(worker_root) == {"step": (1, True, {})}
    # The thread's tree shows the merge where the engine grafted it (the timers file).
    from conftest import path as file_path
    file_workers = file_path(run.timers(), "collect", "workers")
    names_to_graft = []

    def walk(node, trail):
        for c in node.get("children", []):
            if c["name"] == "worker_root":
                names_to_graft.append(trail)
            walk(c, trail + [c["name"]])
    walk(file_workers, [])
    assert len(names_to_graft) == 1

    def dict_walk(node, trail, out):
        for name, c in node.get("children", {}).items():
            if name == "worker_root":
                out.append(trail)
            dict_walk(c, trail + [name], out)
    in_tree = []
    dict_walk(workers, [], in_tree)
    assert in_tree == names_to_graft


def test_merges_never_read_back_reach_the_timers_file_at_exit(tmp_path):
    # merge() hands its trees to the engine at the next read or at exit: a program that merges
    # and exits without reading still has them in its file.
    run = run_scenario(tmp_path, """
        from ringprof.mlagents import hierarchical_timer, TimerNode
        worker = TimerNode()
        worker.add_time(0.5)
        worker.get_child("step").add_time(0.25)
        for _ in range(3):
            with hierarchical_timer("workers") as node:
                node.merge(worker, root_name="worker_root")
        print("{}")
    """)
    from conftest import path
    worker_root = path(run.timers(), "workers", "worker_root")
    assert worker_root["count"] == 3 and worker_root["is_parallel"] is True
    assert path(worker_root, "step")["count"] == 3
