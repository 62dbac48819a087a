"""The Python module across a process's life: fork-started multiprocessing workers that leave
with os._exit still write their files; daemon threads calling into ringprof while the
interpreter exits do not abort it; a second import of the package under another name is refused
cleanly. Each scenario runs in its own interpreter under a deadline."""
import glob
import json
import os
import subprocess
import textwrap

import pytest

from conftest import DEADLINE_SECONDS, PYTHON, path


def run_python(tmp_path, code, run_id="life"):
    """Runs `code` in a fresh interpreter; returns (returncode, stdout, stderr, output folder)."""
    out_dir = str(tmp_path / "out")
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, RINGPROF_OUTPUT_DIR=out_dir, RINGPROF_RUN_ID=run_id)
    try:
        done = subprocess.run([PYTHON, str(script)], env=env, capture_output=True, text=True,
                              timeout=DEADLINE_SECONDS, cwd=str(tmp_path))
    except subprocess.TimeoutExpired:
        pytest.fail("the scenario did not finish within %d s" % DEADLINE_SECONDS)
    return done.returncode, done.stdout, done.stderr, out_dir


def test_fork_started_multiprocessing_workers_write_their_files_before_os_exit(tmp_path):
    # ML-Agents' SubprocessEnvManager: a Process per worker, commands over a Pipe, the worker
    # returns when told to close (multiprocessing then ends it with os._exit); and a Pool.
    rc, out, err, out_dir = run_python(tmp_path, """
        import json, multiprocessing, os, ringprof

        def env_worker(conn):
            while True:
                cmd = conn.recv()
                if cmd == "close":
                    conn.send(os.getpid())
                    return
                with ringprof.scope("env_step"):
                    pass
                conn.send(cmd)

        def pool_task(n):
            for _ in range(n):
                with ringprof.scope("pool_step"):
                    pass
            return os.getpid()

        if __name__ == "__main__":
            ctx = multiprocessing.get_context("fork")
            with ringprof.scope("parent"):
                pass
            workers = []
            for _ in range(2):
                parent, child = ctx.Pipe()
                p = ctx.Process(target=env_worker, args=(child,))
                p.start()
                workers.append((p, parent))
            for _, conn in workers:
                for step in range(3):
                    conn.send(step)
                    conn.recv()
            env_pids = []
            for p, conn in workers:
                conn.send("close")
                env_pids.append(conn.recv())
                p.join()
            pool = ctx.Pool(1)
            pool_pid = pool.map(pool_task, [4])[0]
            pool.close()
            pool.join()
            print(json.dumps({"env": env_pids, "pool": pool_pid}))
    """)
    assert rc == 0, err
    pids = json.loads(out.strip().splitlines()[-1])
    for pid, scope, count in [(p, "env_step", 3) for p in pids["env"]] + [(pids["pool"], "pool_step", 4)]:
        with open(os.path.join(out_dir, "life_%d_timers.json" % pid)) as f:
            assert path(json.load(f), scope)["count"] == count, pid
        assert glob.glob(os.path.join(out_dir, "framework", "pevents", "*", "*_%d-*pythontimeline.json" % pid)), pid
    left = [f for f in glob.glob(os.path.join(out_dir, "**", "*"), recursive=True) if f.endswith(".tmp")]
    assert not left, "temporary files left behind: %s" % left


@pytest.mark.parametrize("call", ["ringprof.flush()", "ringprof.timer_tree()"])
def test_daemon_threads_calling_ringprof_while_the_interpreter_exits_do_not_abort_it(tmp_path, call):
    rc, out, err, _ = run_python(tmp_path, """
        import threading, time, ringprof
        started = threading.Barrier(5)
        def keep_calling():
            started.wait()
            while True:
                with ringprof.scope("daemon_step"):
                    pass
                %s
        for _ in range(4):
            threading.Thread(target=keep_calling, daemon=True).start()
        started.wait()
        time.sleep(0.2)
        print("main done")
    """ % call)
    assert "terminate called" not in err, err
    assert rc == 0, err
    assert out.strip() == "main done"


def test_a_second_import_of_the_package_under_another_name_is_refused_clearly(tmp_path):
    alias = tmp_path / "alias"
    alias.mkdir()
    rc, out, err, _ = run_python(tmp_path, """
        import json, os, sys
        import ringprof
        os.symlink(os.path.dirname(ringprof.__file__), os.path.join(%r, "ringprof_again"))
        sys.path.insert(0, %r)
        with ringprof.scope("before"):
            pass
        try:
            import ringprof_again
            refused = None
        except ImportError as e:
            refused = str(e)
        with ringprof.scope("after"):       # the first import goes on working
            pass
        ringprof.flush()
        print(json.dumps({"refused": refused, "names": [c["name"] for c in ringprof.timer_tree()["children"]]}))
    """ % (str(alias), str(alias)))
    assert rc == 0, err  # was: free(): invalid pointer at exit
    r = json.loads(out.strip().splitlines()[-1])
    assert r["refused"] and "already loaded in this process, as ringprof._ringprof" in r["refused"], r
    assert "Import ringprof by one name only" in r["refused"]
    assert "before" in r["names"] and "after" in r["names"]
