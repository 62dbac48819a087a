"""Every way a Python program ends writes every output whole and valid, with the exit code it
would have had without ringprof: an uncaught exception, Ctrl-C (KeyboardInterrupt, and a real
SIGINT), SIGTERM at its default action, sys.exit() in the child of an os.fork() made from a thread.
Each scenario runs in its own interpreter under a deadline."""
import glob
import gzip
import json
import os
import signal
import subprocess
import textwrap
import time

import pytest

from conftest import DEADLINE_SECONDS, PYTHON, child


def start(tmp_path, code, run_id="end"):
    out_dir = str(tmp_path / "out")
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, RINGPROF_OUTPUT_DIR=out_dir, RINGPROF_RUN_ID=run_id)
    # In a process group of its own: a scenario that hangs is killed with every process it started
    # (a pool's workers hold the output pipes open too).
    proc = subprocess.Popen([PYTHON, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(tmp_path), start_new_session=True)
    return proc, out_dir


def finish(proc):
    try:
        out, err = proc.communicate(timeout=DEADLINE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the scenario did not finish within %d s" % DEADLINE_SECONDS)
    return proc.returncode, out, err


def expect_every_output_whole(out_dir, run_id, scope, count):
    """Timers, statistics, trace and pythontimeline: each present, parsed back, holding `scope`."""
    names = sorted(os.listdir(out_dir))
    assert not [n for n in names if n.endswith(".tmp")], names
    with open(os.path.join(out_dir, run_id + "_timers.json")) as f:
        timers = json.load(f)
    node = child(timers, scope)
    assert node is not None and node["count"] == count, json.dumps(timers)[:400]
    with open(os.path.join(out_dir, run_id + "_stats.json")) as f:
        json.load(f)
    with gzip.open(os.path.join(out_dir, run_id + "_trace.json.gz"), "rt") as f:
        events = json.load(f)["traceEvents"]
    assert sum(1 for e in events if e.get("name") == scope) == count
    timelines = glob.glob(os.path.join(out_dir, "framework", "pevents", "*", "*pythontimeline.json"))
    assert timelines, "no finished pythontimeline: %s" % names
    leftovers = glob.glob(os.path.join(out_dir, "framework", "**", "*.tmp"), recursive=True)
    assert not leftovers, leftovers
    seen = 0
    for path in timelines:
        with open(path) as f:
            data = json.load(f)
            events = data if isinstance(data, list) else data["traceEvents"]
            seen += sum(1 for e in events if e.get("name") == scope)
    assert seen == count


RECORD = """
    import os, signal, sys, time, ringprof
    for _ in range(100):
        with ringprof.scope("work"):
            pass
"""


def test_an_uncaught_exception_writes_every_output(tmp_path):
    proc, out_dir = start(tmp_path, RECORD + """
    raise RuntimeError("the program fails")
    """)
    rc, _, err = finish(proc)
    assert rc == 1, err
    assert "the program fails" in err
    expect_every_output_whole(out_dir, "end", "work", 100)


def test_keyboard_interrupt_keeps_exit_code_130_and_writes_every_output(tmp_path):
    proc, out_dir = start(tmp_path, RECORD + """
    raise KeyboardInterrupt
    """)
    rc, _, err = finish(proc)
    assert rc == -signal.SIGINT, (rc, err)  # Python ends an interrupted run by SIGINT itself
    expect_every_output_whole(out_dir, "end", "work", 100)


def test_keyboard_interrupt_after_a_flush_in_finally_writes_every_output(tmp_path):
    proc, out_dir = start(tmp_path, RECORD + """
    try:
        raise KeyboardInterrupt
    finally:
        ringprof.flush()
    """)
    rc, _, err = finish(proc)
    assert rc == -signal.SIGINT, (rc, err)
    expect_every_output_whole(out_dir, "end", "work", 100)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_from_outside_keeps_its_exit_status_and_writes_every_output(tmp_path, sig):
    proc, out_dir = start(tmp_path, RECORD + """
    ringprof.flush()
    print("ready", flush=True)
    while True:
        time.sleep(0.01)
    """)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(sig)
    rc, _, err = finish(proc)
    assert rc == -sig, (rc, err)
    expect_every_output_whole(out_dir, "end", "work", 100)


def test_sys_exit_in_the_child_of_a_fork_from_a_thread_ends_the_child(tmp_path):
    proc, out_dir = start(tmp_path, """
    import json, os, sys, threading, ringprof

    with ringprof.scope("parent"):
        pass
    result = {}

    def fork_here():
        pid = os.fork()
        if pid == 0:
            with ringprof.scope("in_child"):
                pass
            sys.exit(0)
        result["pid"] = pid
        _, status = os.waitpid(pid, 0)
        result["status"] = status

    t = threading.Thread(target=fork_here)
    t.start()
    t.join()
    print(json.dumps(result))
    """)
    rc, out, err = finish(proc)
    assert rc == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert os.WIFEXITED(result["status"]) and os.WEXITSTATUS(result["status"]) == 0, result
    with open(os.path.join(out_dir, "end_%d_timers.json" % result["pid"])) as f:
        node = child(json.load(f), "in_child")
    assert node is not None and node["count"] == 1


def test_a_pool_worker_ended_by_terminate_writes_its_files(tmp_path):
    # `with Pool(...)` calls terminate() on leaving the block: SIGTERM to each worker.
    proc, out_dir = start(tmp_path, """
    import multiprocessing, os, ringprof

    def task(n):
        for _ in range(n):
            with ringprof.scope("pool_step"):
                pass
        return os.getpid()

    if __name__ == "__main__":
        with ringprof.scope("parent"):
            pass
        with multiprocessing.get_context("fork").Pool(1) as pool:
            print(pool.map(task, [4])[0])
    """)
    rc, out, err = finish(proc)
    assert rc == 0, err
    pid = int(out.strip().splitlines()[-1])
    deadline = time.monotonic() + DEADLINE_SECONDS  # the worker may still be writing as the parent exits
    path_ = os.path.join(out_dir, "end_%d_timers.json" % pid)
    while not os.path.exists(path_) and time.monotonic() < deadline:
        time.sleep(0.05)
    with open(path_) as f:
        node = child(json.load(f), "pool_step")
    assert node is not None and node["count"] == 4
