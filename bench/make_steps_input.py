#!/usr/bin/env python3
"""Writes the input of steps_vs_smdebug.sh: a job in smdebug's layout, two hosts of two processes,
STEPS training steps (default 1600, about 32 MB). Per step and process (262,400 events in all): the Step:ModeKeys.TRAIN event,
30 data-iterator events carrying step_num, 10 forward events without it (their step is the one
containing them; some named by args.layer_name). Every event lies in a step, so smdebug's analysis
runs to the end. Usage: make_steps_input.py DIR [STEPS]"""
import json
import os
import sys

BASE = 1594662605425850
root = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1600
for host in (1, 2):
    for proc in (0, 1):
        n = (host - 1) * 2 + proc
        node_id = f"{900 + n}-algo-{host}"
        base = BASE + n * 7
        py = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
              {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}},
              {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "DataIterator"}}]
        model = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": base}},
                 {"name": "process_name", "ph": "M", "pid": 3, "args": {"name": "Forward"}}]
        for s in range(steps):
            t = 1000 + s * 20000
            dur = 18000 + (s * 7919 + n * 104729) % 1500 + (2500 if n == 3 and s % 97 == 5 else 0)
            py.append({"name": "Step:ModeKeys.TRAIN", "ph": "X", "pid": 1, "tid": 1, "ts": t, "dur": dur,
                       "args": {"step_num": str(s)}})
            for k in range(30):
                py.append({"name": "DataIterator::GetNext", "ph": "X", "pid": 2, "tid": 2, "ts": t + 20 + k * 9,
                           "dur": 3 + (k * s) % 11, "args": {"step_num": s, "worker": k % 4}})
            for k in range(10):
                ev = {"name": f"layer{k}", "ph": "X", "pid": 3, "tid": 3, "ts": t + 400 + k * 1500, "dur": 1200 + (s + k) % 200}
                if k % 3 == 0:
                    ev["args"] = {"layer_name": f"block{k}/conv"}
                model.append(ev)
        end = base + 1000 + steps * 20000
        d = os.path.join(root, "framework", "pevents", "2020071317")
        os.makedirs(d, exist_ok=True)
        for suffix, events in (("pythontimeline.json", py), ("model_timeline.json", model)):
            with open(os.path.join(d, f"{end}_{node_id}_{suffix}"), "w") as f:
                f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]")
