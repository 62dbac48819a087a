"""ringprof.mlagents against ML-Agents' own timers module (tests/python/oracle/mlagents_timers.py,
vendored as a test oracle): each program runs once on the oracle and once on ringprof.mlagents,
and what ML-Agents' public API returns must match."""
import os

from conftest import HERE, path, run_scenario

ORACLE_DIR = os.path.join(HERE, "oracle")
ORACLE = "mlagents_timers"
RINGPROF = "ringprof.mlagents"


def on_both(tmp_path, code):
    """Runs `code` (which imports `timers` from MODULE) on the oracle and on ringprof; returns
    (oracle's result, ringprof's result, ringprof's run)."""
    results = []
    runs = []
    for module in (ORACLE, RINGPROF):
        where = tmp_path / module.replace(".", "_")
        where.mkdir()
        program = "import importlib\ntimers = importlib.import_module(%r)\n" % module + code
        run = run_scenario(where, program, extra_path=[ORACLE_DIR])
        results.append(run.result())
        runs.append(run)
    return results[0], results[1], runs[1]


def shape(tree):
    """name -> (count, is_parallel, children) of a get_timer_tree() dict."""
    return {name: (node["count"], node.get("is_parallel", False), shape(node))
            for name, node in tree.get("children", {}).items()}


def test_every_public_name_of_mlagents_timers_is_importable_from_ringprof_mlagents(tmp_path):
    oracle, ours, _ = on_both(tmp_path, """
import json, types
names = [n for n, v in vars(timers).items()
         if not n.startswith("_") and getattr(v, "__module__", timers.__name__) == timers.__name__
         and (callable(v) or isinstance(v, str))]
print(json.dumps([sorted(names), timers.TIMER_FORMAT_VERSION]))
""")
    missing = set(oracle[0]) - set(ours[0]) - {"FuncT"}  # a typing helper, not API
    assert not missing, "ML-Agents names ringprof.mlagents lacks: %s" % sorted(missing)
    assert ours[1] == oracle[1]


THREADED_TRAINER = """
import json, threading

# Both trainers alive at once: a thread started after another has exited may get its id, and
# ML-Agents (keying stacks by thread id) would then give both one stack.
both_started = threading.Barrier(2)

def trainer(advances):
    both_started.wait()
    for i in range(advances):
        with timers.hierarchical_timer("trainer_advance"):
            timers.set_gauge("reward", float(i))

threads = [threading.Thread(target=trainer, args=(10,)) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
# ML-Agents' TrainerController.join_threads, as written there.
with timers.hierarchical_timer("trainer_threads") as main_timer_node:
    for trainer_thread in threads:
        thread_timer_stack = timers.get_timer_stack_for_thread(trainer_thread)
        if thread_timer_stack:
            main_timer_node.merge(thread_timer_stack.root, root_name="thread_root", is_parallel=True)
            timers.merge_gauges(thread_timer_stack.gauges)
print(json.dumps(timers.get_timer_tree()))
"""


def test_the_threaded_trainer_pattern_gives_mlagents_tree_and_gauges(tmp_path):
    oracle, ours, run = on_both(tmp_path, THREADED_TRAINER)
    assert shape(oracle) == {"trainer_threads": (1, False, {"thread_root": (0, True, {
        "trainer_advance": (20, True, {})})})}, "the oracle's own numbers"
    assert shape(ours) == shape(oracle)
    assert {k: v for k, v in ours["gauges"]["reward"].items()} == oracle["gauges"]["reward"]
    assert ours["gauges"]["reward"]["count"] == 20
    # The process's timers file holds each thread's advances once (at its thread's place, the
    # process root), not again under trainer_threads.
    timers_file = run.timers()
    assert path(timers_file, "trainer_advance")["count"] == 20
    assert path(timers_file, "trainer_threads").get("children", []) == []


def test_an_infinite_gauge_counts_as_in_mlagents(tmp_path):
    oracle, ours, _ = on_both(tmp_path, """
import json, math
for i in range(10):
    timers.set_gauge("loss", 1.0 / (i + 1))
timers.set_gauge("loss", math.inf)
timers.set_gauge("loss", math.nan)   # ignored by both
print(json.dumps(timers.get_timer_tree()["gauges"]))
""")
    assert oracle["loss"] == {"value": float("inf"), "min": 0.1, "max": float("inf"), "count": 11}
    assert ours["loss"] == oracle["loss"]


def test_the_metadata_has_every_key_mlagents_writes(tmp_path):
    oracle, ours, _ = on_both(tmp_path, """
import json
with timers.hierarchical_timer("a"):
    pass
print(json.dumps(timers.get_timer_tree()["metadata"]))
""")
    assert set(oracle) <= set(ours), "missing: %s" % sorted(set(oracle) - set(ours))
    assert ours["command_line_arguments"] == oracle["command_line_arguments"].replace(
        str(tmp_path / "mlagents_timers"), str(tmp_path / "ringprof_mlagents"))
    assert ours["timer_format_version"] == oracle["timer_format_version"]


def test_merge_of_a_worker_tree_costs_about_what_mlagents_merge_costs(tmp_path):
    # Timed in one process on the same 3-node tree (ML-Agents' worker root shape); the log shows
    # both. Only a generous ratio is asserted: CI machines are loaded and timing is noisy.
    run = run_scenario(tmp_path, """
import json, timeit
import mlagents_timers as ml
from ringprof import mlagents as rp

def worker_tree(module):
    root = module.TimerNode()
    root.total, root.count = 1.0, 1
    step = root.get_child("UnityEnvironment.step")
    step.add_time(0.5)
    step.get_child("communicator.exchange").add_time(0.4)
    return root

def cost(module):
    tree = worker_tree(module)
    def trainer_step():   # one step of a trainer with 4 workers
        with module.hierarchical_timer("workers") as node:
            for _ in range(4):
                node.merge(tree, root_name="worker_root", is_parallel=True)
    return min(timeit.repeat(trainer_step, number=500, repeat=5)) / 2000

ml_cost, rp_cost = cost(ml), cost(rp)
tree = rp.get_timer_tree()
print(json.dumps([ml_cost, rp_cost, tree["children"]["workers"]["children"]["worker_root"]["count"]]))
""", extra_path=[ORACLE_DIR])
    ml_cost, rp_cost, merged = run.result()
    print("merge of a 3-node tree: ML-Agents %.2f us, ringprof %.2f us, ratio %.2f"
          % (ml_cost * 1e6, rp_cost * 1e6, rp_cost / ml_cost))
    assert merged == 4 * 500 * 5  # every merge arrived (the worker root's count is 1)
    assert rp_cost / ml_cost < 10, "ringprof's merge is far dearer than ML-Agents'"
