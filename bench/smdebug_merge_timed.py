#!/usr/bin/env python3
"""Times smdebug's own MergedTimeline.merge_timeline() call alone (imports and Python start-up
excluded, which favours smdebug), over everything in PATH.
Usage: SMDEBUG_SRC=DIR smdebug_merge_timed.py PATH OUT. Prints the seconds (wall and CPU), then the output file."""
import glob
import os
import sys
import time
import types

sys.path.insert(0, os.environ["SMDEBUG_SRC"])
for missing in ("pyinstrument",):  # imported by smdebug's profiler package, unused by merging
    if missing not in sys.modules:
        m = types.ModuleType(missing)
        m.Profiler = object
        sys.modules[missing] = m
import logging  # noqa: E402

from smdebug.profiler.analysis.utils.merge_timelines import MergedTimeline  # noqa: E402

logging.disable(logging.CRITICAL)
path, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
merger = MergedTimeline(path, output_directory=out)
started, cpu = time.perf_counter(), time.process_time()
merger.merge_timeline(0, 9999999999999999, unit="time")
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
print(f"{seconds:.3f} s wall {cpu:.3f} s cpu")
print(sorted(glob.glob(os.path.join(out, "*_merged_timeline.json")))[-1])
