#!/usr/bin/env python3
"""Writes the input of the training-phase fixture (tests/system/smdebug_phase_answer/input). Its
answers were written by SageMaker Debugger's own PandasFrameAnalysis (get_utilization_stats(by=
TRAINING_PHASE), get_job_statistics) through the shared tools' smdebug_system_stats.py:
  python3 make_input.py && SMDEBUG_SRC=<smdebug checkout> /usr/bin/python3 <tools>/smdebug_system_stats.py input out
  cp out/utilization_by_phase.csv smdebug_utilization_by_phase.csv; cp out/job_statistics.json smdebug_job_statistics.json
and the same over input_one_phase into smdebug_one_phase_utilization_by_phase.csv (TRAIN steps only: one
phase, so every step is an interval of its own, with "Between Step:ModeKeys.TRAIN and
Step:ModeKeys.TRAIN" between them).
Two nodes (algo-2 85 ms after algo-1, so its samples fall in the gaps between steps) sampled every
100 ms from 300 ms before the first step to after the last. Two phases, TRAIN and EVAL, in runs
(TRAIN 0-3, EVAL 0-1, TRAIN 4-5), so smdebug groups each run into one interval, with Before,
Between and After intervals around them; a forward pass event of step 5 ends after the last sample
(a negative finalization). Every event names its step (smdebug raises an IndexError for one that
lies in no step)."""
import json
import os
import shutil

BASE_S = 1594662605.4  # the first step's start, seconds
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "input")
ONE_PHASE = False  # input_one_phase: TRAIN steps only, each an interval of its own


def rows(node, offset_s):
    out = []
    for i in range(16):
        ts = round(BASE_S - 0.3 + i * 0.1 + offset_s, 6)
        r = lambda t, n, d, v: out.append({"Type": t, "Name": n, "Dimension": d, "Value": v, "NodeId": node, "Timestamp": ts})
        r("cpu", "cpu0", "CPUUtilization", 10.0 + 3 * i)
        r("cpu", "cpu0", "I/OWaitPercentage", 0.5 * (i % 3))
        r("memory", "MemoryUsedPercent", "Memory", 40.0 + i / 4)
        r("gpu", "gpu0", "GPUUtilization", (37.5 * i) % 101)
    return out


def write_system(node, offset_s):
    folder = os.path.join(ROOT, "system", "incremental", "2020071317")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"1594662600.{node}.json"), "w") as f:
        for row in rows(node, offset_s):
            f.write(json.dumps(row, separators=(",", ":")) + "\n")


def write_framework():
    base_us = int(BASE_S * 1000000)
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base_us}},
              {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}},
              {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "Step:ModeKeys.EVAL"}},
              {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "forward"}}]
    def step(pid, name, ts, s):
        events.append({"name": name, "pid": pid, "ph": "X", "ts": ts, "dur": 80000, "args": {"step_num": str(s)}})
    for s in range(4):
        step(1, "Step:ModeKeys.TRAIN", s * 100000, s)
    for s in range(2):
        if not ONE_PHASE:
            step(2, "Step:ModeKeys.EVAL", 450000 + s * 100000, s)
    for s in range(4, 6):
        step(1, "Step:ModeKeys.TRAIN", 700000 + (s - 4) * 100000, s)
    events.append({"name": "forward", "pid": 3, "ph": "X", "ts": 850000, "dur": 500000, "args": {"step_num": "5"}})
    folder = os.path.join(ROOT, "framework", "pevents", "2020071317")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{base_us + 1350000}_1-algo-1_pythontimeline.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]")


if __name__ == "__main__":
    for ONE_PHASE in (False, True):
        ROOT = os.path.join(HERE, "input_one_phase" if ONE_PHASE else "input")
        shutil.rmtree(ROOT, ignore_errors=True)
        write_system("algo-1", 0.0)
        write_system("algo-2", 0.085)
        write_framework()
