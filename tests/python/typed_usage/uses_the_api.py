"""A program using ringprof's public API as the stubs type it: `mypy --strict` accepts it."""
from typing import Any, Dict, List, Optional

import ringprof
import threading

from ringprof.mlagents import (TIMER_FORMAT_VERSION, GaugeNode, TimerNode, TimerStack, get_timer_root,
                               get_timer_stack_for_thread, get_timer_tree, hierarchical_timer, merge_gauges, set_gauge,
                               timed)


@ringprof.function
def forward(batch: List[float]) -> float:
    return sum(batch)


@ringprof.function(name="backward")
def backward(loss: float) -> float:
    return -loss


@timed
def env_step(n: int) -> int:
    return n + 1


def train(batches: List[List[float]]) -> Optional[Dict[str, Any]]:
    with ringprof.Profile(builtins=False) as profile:
        for n, batch in enumerate(batches):
            with ringprof.step(n), ringprof.scope("train") as timer:
                name: str = timer.name
                loss: float = forward(batch) + len(name)
                backward(loss)
                ringprof.gauge("loss", loss)
        with hierarchical_timer("workers") as node:
            node.merge(TimerNode(), root_name="worker_0")
        set_gauge("reward", 1.0)
        worker = threading.Thread(target=env_step, args=(0,))
        worker.start()
        worker.join()
        stack: Optional[TimerStack] = get_timer_stack_for_thread(worker)
        if stack is not None:
            node.merge(stack.root, root_name="thread_root")
            gauges: Dict[str, GaugeNode] = stack.gauges
            merge_gauges(gauges)
        env_step(1)
    table: str = profile.stats_table("cumulative")
    rows = profile.getstats()
    calls: int = rows[0].callcount if rows else len(table)
    root: TimerNode = get_timer_root()
    tree: Dict[str, Any] = get_timer_tree()
    version: str = ringprof.__version__ + TIMER_FORMAT_VERSION
    paths: List[str] = [ringprof.get_include(), ringprof.get_cmake_dir(), ringprof.get_library()]
    ringprof.flush()
    print(calls, root.count, len(tree), version, paths, ringprof.is_enabled(), ringprof.dropped_scopes())
    return ringprof.timer_tree()
