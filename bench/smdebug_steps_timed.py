#!/usr/bin/env python3
"""Times SageMaker Debugger's own step statistics on a folder: PandasFrame reads the framework
events once, PandasFrameAnalysis gives every event its step, then get_step_statistics runs for
training_phase, process and framework_metric. Writes <by>.csv into OUT and prints "<seconds> s wall".
smdebug's default 5-second scan windows start at its first system-metrics file (the epoch when
there is none), so one window covering the whole job is asked for.
Usage: SMDEBUG_SRC=<checkout> /usr/bin/python3 smdebug_steps_timed.py PATH OUT"""
import os
import sys
import time
import types

sys.path.insert(0, os.environ["SMDEBUG_SRC"])
sys.modules.setdefault("pyinstrument", types.SimpleNamespace(Profiler=object))  # imported, not used here
import pandas as pd  # noqa: E402
from smdebug.profiler.analysis.utils.pandas_data_analysis import PandasFrameAnalysis, StatsBy  # noqa: E402
from smdebug.profiler.analysis.utils.profiler_data_to_pandas import PandasFrame  # noqa: E402

path, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
began = time.perf_counter()
frame = PandasFrame(path, scan_interval=10**18)
_, framework = frame.get_profiler_data_by_time(0, 10**17, get_system_metrics=False)
analysis = PandasFrameAnalysis(pd.DataFrame({"timestamp": [0], "timestamp_us": [0]}), framework)
tables = {by.value: analysis.get_step_statistics(by=by)
          for by in (StatsBy.TRAINING_PHASE, StatsBy.PROCESS, StatsBy.FRAMEWORK_METRICS)}
elapsed = time.perf_counter() - began
for name, table in tables.items():
    table.to_csv(os.path.join(out, name + ".csv"), index=False)
print(f"{elapsed:.3f} s wall")
