#!/usr/bin/env python3
"""Writes the inputs of the step-statistics fixtures (tests/steps/smdebug_answer/input and
outside_steps). The answers in smdebug/ were written once by SageMaker Debugger's own
PandasFrameAnalysis.get_step_statistics (the shared tools' smdebug_step_stats.py):
  python3 make_input.py && PYTHONHASHSEED=0 SMDEBUG_SRC=<smdebug checkout> \
    /usr/bin/python3 <shared tools>/smdebug_step_stats.py input smdebug
On outside_steps smdebug stops with IndexError (events after the last step); ringprof leaves those
events out, so its answer there is smdebug's answer on input.

Two hosts, three processes (two on algo-1), no system metrics. Eight TRAIN steps and two EVAL
steps marked by Step:ModeKeys events with step_num (as a string, as smdebug writes it), a
straggler (algo-2 in step 5), data-iterator events with integer step_num, model events without
step_num (their step is the one containing them) named through args.layer_name and args.name,
float times, a B/E pair whose E carries the step, an explicit step_num -1, durations that tie
across steps and groups whose percentiles fall between two steps (linear interpolation)."""
import json
import os
import shutil

BASE = 1594662605425850
HERE = os.path.dirname(os.path.abspath(__file__))
NODES = [("900-algo-1", 0), ("901-algo-1", 1), ("910-algo-2", 2)]
TRAIN_STEPS = 8
STEP_EVERY = 10000


def write(path, events):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]")


def step_time(s, n):
    """(start, duration) of step s on node n, relative to the node's base."""
    start = 1000 + s * STEP_EVERY + n * 40
    dur = 8000 + ((s * 37 + n * 11) % 5) * 100  # five values: ties across steps
    if s == 5 and n == 2:
        dur = 9700  # the straggler
    if s >= TRAIN_STEPS:
        dur = 3000 + n * 250  # eval steps
    return start, dur


def node_files(root, node_id, n):
    base = BASE + n * 3
    py = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
          {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}},
          {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "Step:ModeKeys.EVAL"}},
          {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "DataIterator"}},
          {"name": "process_name", "ph": "M", "pid": 4, "args": {"name": "Backward"}}]
    model = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
             {"name": "process_name", "ph": "M", "pid": 5, "args": {"name": "Forward"}}]
    last_end = 0
    for s in range(TRAIN_STEPS + 2):
        start, dur = step_time(s, n)
        mode, pid = ("Step:ModeKeys.TRAIN", 1) if s < TRAIN_STEPS else ("Step:ModeKeys.EVAL", 2)
        py.append({"name": mode, "ph": "X", "pid": pid, "tid": 1, "ts": start, "dur": dur,
                   "args": {"step_num": str(s)}})
        last_end = max(last_end, start + dur)
        # Data iterator: carries its step; the same span in several steps (ties).
        for k in range(3):
            py.append({"name": "DataIterator::GetNext", "ph": "X", "pid": 3, "tid": 2,
                       "ts": start + 10 + k * 300, "dur": 50 + (s % 3) * 25, "args": {"step_num": s}})
        if s < TRAIN_STEPS:
            # Backward as a B/E pair; the step is on the E event, where smdebug reads args.
            py.append({"name": "backward_pass", "ph": "B", "pid": 4, "tid": 3, "ts": start + 4000})
            py.append({"name": "backward_pass", "ph": "E", "pid": 4, "tid": 3, "ts": start + 4000 + 1500 + s * 10 + n,
                       "args": {"step_num": s}})
            # Model events without step_num: the step whose span contains them is theirs.
            model.append({"name": "conv", "ph": "X", "pid": 5, "tid": 4, "ts": start + 1000.5, "dur": 700 + s * 3.25,
                          "args": {"layer_name": "conv1/Conv2D", "name": "ignored"}})
            model.append({"name": "act", "ph": "X", "pid": 5, "tid": 4, "ts": start + 1800, "dur": 200 + (s % 2) * 50,
                          "args": {"name": "relu"}})
            model.append({"name": "matmul", "ph": "X", "pid": 5, "tid": 4, "ts": start + 2200, "dur": 333.5 + n,
                          "args": {"step_num": -1}})
            model.append({"name": "matmul", "ph": "X", "pid": 5, "tid": 4, "ts": start + 2700, "dur": 100 + s})
    pevents = os.path.join(root, "framework", "pevents", "2020071317")
    end = base + last_end
    write(os.path.join(pevents, f"{end}_{node_id}_pythontimeline.json"), py)
    write(os.path.join(pevents, f"{end}_{node_id}_model_timeline.json"), model)


def after_last_step(root):
    """Events of a worker after the last step ended (as ringprof's demo writes): in no step."""
    base = BASE + 6
    start = 1000 + (TRAIN_STEPS + 2) * STEP_EVERY + 5000
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
              {"name": "process_name", "ph": "M", "pid": 6, "args": {"name": "Worker"}},
              {"name": "checkpoint_save", "ph": "X", "pid": 6, "tid": 9, "ts": start, "dur": 1200},
              {"name": "worker_flush", "ph": "X", "pid": 6, "tid": 9, "ts": start + 1500, "dur": 300}]
    write(os.path.join(root, "framework", "pevents", "2020071317", f"{base + start + 1800}_910-algo-2_model_timeline.json"),
          events)


if __name__ == "__main__":
    for name in ("input", "outside_steps"):
        root = os.path.join(HERE, name)
        shutil.rmtree(root, ignore_errors=True)
        for node_id, n in NODES:
            node_files(root, node_id, n)
    after_last_step(os.path.join(HERE, "outside_steps"))
