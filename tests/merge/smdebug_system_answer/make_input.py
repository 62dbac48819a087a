#!/usr/bin/env python3
"""Writes the input of the system-metrics smdebug-answer fixture (tests/merge/smdebug_system_answer/input).
Its answer, smdebug_merged_timeline.json, was written by SageMaker Debugger's own MergedTimeline with
its default filter (counters, and sys_metrics_bottlenecks where a GPU is below 85 %):
  python3 make_input.py && PYTHONHASHSEED=0 SMDEBUG_SRC=<smdebug checkout> \
    /usr/bin/python3 <the merger script of the shared tools>/smdebug_merge.py input out 0 9999999999999999
  cp out/*_merged_timeline.json smdebug_merged_timeline.json
Two nodes (algo-1, and algo-2 5 ms later, inside the 20 ms window) sampled every 100 ms: two cores,
memory, two GPUs low together (the loop's stale-sample quirk), one low, both high; the last samples
high (the loop stops there: no counters after). A file with a corrupt last line (smdebug skips it),
one pythontimeline file of steps so the merge has framework events too, sharing timestamps with
samples (framework events come first at one time)."""
import json
import os
import shutil

BASE_S = 1594662605.4  # seconds
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "input")

# GPU utilization of (gpu0, gpu1) per sample: both low, one low, both high, ...
GPU = [(10.0, 20.0), (90.0, 30.5), (95.0, 99.0), (40.0, 50.0), (84.99, 85.0), (100.0, 90.0), (91.0, 92.0)]


def rows(node, offset_s):
    out = []
    for i, (g0, g1) in enumerate(GPU):
        ts = round(BASE_S + i * 0.1 + offset_s, 6)
        r = lambda t, n, d, v: out.append({"Type": t, "Name": n, "Dimension": d, "Value": v, "NodeId": node, "Timestamp": ts})
        r("cpu", "cpu0", "CPUUtilization", 10.0 + i)
        r("cpu", "cpu0", "I/OWaitPercentage", 1.5)
        r("cpu", "cpu1", "CPUUtilization", 50.25 + i)
        r("cpu", "cpu1", "I/OWaitPercentage", 0.0)
        r("memory", "MemoryUsedPercent", "Memory", 30.0 + i / 10)
        r("gpu", "gpu0", "GPUUtilization", g0)
        r("gpu", "gpu1", "GPUUtilization", g1)
        r("gpu", "gpu0", "GPUMemoryUtilization", 60.0)
        r("gpu", "gpu1", "GPUMemoryUtilization", 61.0)
    return out


def write_system(node, offset_s, corrupt_tail=False):
    folder = os.path.join(ROOT, "system", "incremental", "2020071317")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"1594662600.{node}.json"), "w") as f:
        for row in rows(node, offset_s):
            f.write(json.dumps(row, separators=(",", ":")) + "\n")
        if corrupt_tail:
            f.write('{"Type":"cpu","Name":"cpu0","Dimension":"CPUUtiliz')  # a writer in mid-line


def write_framework():
    base_us = int(BASE_S * 1000000)
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base_us}},
              {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}}]
    for s in range(7):
        events.append({"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": s * 100000, "dur": 90000,
                       "args": {"step_num": str(s)}})
    folder = os.path.join(ROOT, "framework", "pevents", "2020071317")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{base_us + 700000}_1-algo-1_pythontimeline.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]")


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    write_system("algo-1", 0.0, corrupt_tail=True)
    write_system("algo-2", 0.005)
    write_framework()
