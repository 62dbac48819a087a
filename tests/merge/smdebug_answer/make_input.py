#!/usr/bin/env python3
"""Writes the input of the smdebug-answer fixture (tests/merge/smdebug_answer/input). Its answer,
smdebug_merged_timeline.json, was written by SageMaker Debugger's own MergedTimeline:
  python3 make_input.py && PYTHONHASHSEED=0 SMDEBUG_SRC=<smdebug checkout> \
    /usr/bin/python3 <the merger script of the shared tools>/smdebug_merge.py input out 0 9999999999999999
  cp out/*_merged_timeline.json smdebug_merged_timeline.json
Two hosts of pythontimeline and model_timeline files (steps, iterator bursts, float and integer
times, equal start times across files, a named thread per host (smdebug mixes up hosts that declare one tid: docs/merge.md), names with escapes and non-ASCII text, args of every JSON
type), a Horovod file of B/E pairs and a TensorFlow trace.json.gz with its .metadata marker."""
import gzip
import json
import os
import shutil

BASE = 1594662605425850
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "input")


def write(path, events):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]")


def node(n):
    node_id = f"{900 + n}-host{n}"
    base = BASE + n * 37
    py = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
          {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}}]
    model = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
             {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "DataIterator"}},
             {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "Forward"}},
             {"name": "thread_name", "ph": "M", "pid": 2, "tid": 7 + n, "args": {"name": "main \"loop\""}}]
    for s in range(12):
        t = 1000 + s * 8500
        py.append({"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": t, "dur": 8400,
                   "args": {"pid": 905, "step_num": str(s)}})
        model.append({"ph": "X", "name": "forward \u00e9\u6f22 \U0001F600", "ts": t, "pid": 2, "tid": 7 + n, "dur": 3000.5,
                      "args": {"flag": True, "none": None, "list": [1, 2.5, "x"], "nested": {"k": -3}, "f": 1e-07}})
        for k in range(6):
            model.append({"ph": "X", "name": "dataset::GetNext\t\\", "ts": t + 200 + k * 7, "pid": 1, "dur": k % 4})
    end = BASE + 1000 + 12 * 8500
    pevents = os.path.join(ROOT, "framework", "pevents", "2020071317")
    write(os.path.join(pevents, f"{end}_{node_id}_pythontimeline.json"), py)
    write(os.path.join(pevents, f"{end}_{node_id}_model_timeline.json"), model)


def horovod():
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": BASE}},
              {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "Horovod allreduce"}}]
    for i in range(8):
        events.append({"name": "allreduce.grad", "ph": "B", "pid": 3, "tid": 1, "ts": 3000 + i * 9000})
        events.append({"name": "allreduce.grad", "ph": "E", "pid": 3, "tid": 1, "ts": 3500 + i * 9000, "args": {"size": i * 1024}})
    write(os.path.join(ROOT, "framework", "pevents", "2020071317", f"{BASE + 80000}_900-host0_horovod_timeline.json"),
          events)


def tensorflow():
    step = os.path.join(ROOT, "framework", "tensorflow", "detailed_profiling", "2020071317", "000000000")
    os.makedirs(step, exist_ok=True)
    open(os.path.join(step, f"1-tfhost_{BASE}_{BASE + 10000000}.metadata"), "w").close()
    events = [{"ph": "M", "pid": 49, "name": "process_name", "args": {"name": "/host:CPU"}},
              {"ph": "M", "pid": 49, "tid": 7, "name": "thread_name", "args": {"name": "tf_Compute"}}]
    for i in range(60):
        events.append({"pid": 49, "tid": 7, "ts": 2000 + i * 1500, "name": f"op{i % 5}:MatMul", "ph": "X",
                       "dur": 2.5, "args": {"id": "-1", "iter_num": "0"}})
    path = os.path.join(step, "plugins", "profile", "2020_07_13_17_00_00", "tfhost.example.com.trace.json.gz")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        json.dump({"displayTimeUnit": "ns", "traceEvents": events}, f)


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    node(0)
    node(1)
    horovod()
    tensorflow()
