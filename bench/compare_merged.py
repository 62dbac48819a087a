#!/usr/bin/env python3
"""Compares a merged timeline written by `ringprof merge` with smdebug's MergedTimeline answer by
parsing both back: the same X events (name, ts, dur, args) in the same order, each in a process of
the same pid and name, on a thread of the same name. Thread ids are compared through their names
only: smdebug's are Python string hashes (docs/merge.md, "Stable thread ids").
Usage: compare_merged.py RINGPROF_FILE SMDEBUG_FILE. Exit 0 when equal, 1 with the first difference."""
import json
import sys


def load(path):
    with open(path) as f:
        text = f.read()
    events = json.loads(text) if text.strip() else []  # smdebug writes 0 bytes when nothing matched
    processes, threads, out = {}, {}, []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "X":
            out.append((e["name"], e["ts"], e["dur"], e["pid"], processes.get(e["pid"]),
                        threads.get((e["pid"], e["tid"])), json.dumps(e.get("args"), sort_keys=True)))
    return out


def main():
    ours, theirs = load(sys.argv[1]), load(sys.argv[2])
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            print(f"event #{i} differs:\n  ringprof: {a}\n  smdebug:  {b}")
            return 1
    if len(ours) != len(theirs):
        print(f"ringprof has {len(ours)} X events, smdebug {len(theirs)}")
        return 1
    print(f"same {len(ours)} X events in the same order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
