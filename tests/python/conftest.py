"""Shared helpers of the Python tests. Each scenario runs in a fresh interpreter (its own
session and output files) under a deadline, so a hang fails the test instead of stalling CI.
The package under test is an installed one: a CMake installation (run_pytest.cmake sets
PYTHONPATH and RINGPROF_TEST_PREFIX) or a pip-installed one in the virtual environment of
RINGPROF_TEST_PYTHON (check_pip_install.cmake)."""
import gzip
import json
import os
import subprocess
import sys
import textwrap

import pytest

PYTHON = os.environ.get("RINGPROF_TEST_PYTHON", sys.executable)
PREFIX = os.environ.get("RINGPROF_TEST_PREFIX")
WORK_DIR = os.environ.get("RINGPROF_TEST_WORK_DIR")
HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE_SECONDS = 120


class Run:
    """What a scenario left behind: its output folder, stdout, and the files parsed back."""

    def __init__(self, out_dir, run_id, stdout):
        self.out_dir = out_dir
        self.run_id = run_id
        self.stdout = stdout

    def path(self, suffix):
        return os.path.join(self.out_dir, "%s_%s" % (self.run_id, suffix))

    def timers(self):
        with open(self.path("timers.json")) as f:
            return json.load(f)

    def trace_events(self):
        with gzip.open(self.path("trace.json.gz"), "rt") as f:
            return json.load(f)["traceEvents"]

    def result(self):
        """The last line the scenario printed, as JSON."""
        return json.loads(self.stdout.strip().splitlines()[-1])


def run_scenario(tmp_path, code, extra_path=(), env=None, run_id="scenario"):
    out_dir = str(tmp_path / "out")
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(code))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(list(extra_path) + [environment.get("PYTHONPATH", "")])
    environment["RINGPROF_OUTPUT_DIR"] = out_dir
    environment["RINGPROF_RUN_ID"] = run_id
    environment.update(env or {})
    try:
        done = subprocess.run([PYTHON, str(script)], env=environment, capture_output=True, text=True,
                              timeout=DEADLINE_SECONDS, cwd=str(tmp_path))
    except subprocess.TimeoutExpired:
        pytest.fail("the scenario did not finish within %d s" % DEADLINE_SECONDS)
    assert done.returncode == 0, "scenario failed (%d):\n%s\n%s" % (done.returncode, done.stdout, done.stderr)
    return Run(out_dir, run_id, done.stdout)


def ask_python(code, env=None):
    """What the interpreter under test prints for `code` (stripped)."""
    try:
        done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=DEADLINE_SECONDS,
                              env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("%r did not finish within %d s" % (code, DEADLINE_SECONDS))
    assert done.returncode == 0, "%r failed (%d):\n%s" % (code, done.returncode, done.stderr)
    return done.stdout.strip()


_importable = {}


def require_module(name):
    """Skips the calling test (or fixture) when the interpreter under test cannot import `name`:
    NumPy is Debian's for /usr/bin/python3, and another interpreter (a pyenv 3.8) may lack it."""
    if name not in _importable:
        done = subprocess.run([PYTHON, "-c", "import " + name], capture_output=True, timeout=DEADLINE_SECONDS)
        _importable[name] = done.returncode == 0
    if not _importable[name]:
        pytest.skip("%s has no module %s" % (PYTHON, name))


def child(node, name):
    """The child called `name` of a timers-file node (list form), or None."""
    for c in node.get("children", []):
        if c["name"] == name:
            return c
    return None


def path(node, *names):
    for n in names:
        node = child(node, n)
        assert node is not None, "no node %r in %s" % (n, json.dumps(node)[:400])
    return node


@pytest.fixture(scope="session")
def kernels(tmp_path_factory):
    """The folder holding test_kernels, a C++ extension built against the installed package."""
    # A CMake installation is found by its prefix; a pip-installed ringprof says where its CMake
    # package is (ringprof.get_cmake_dir()), as a user's build would ask it.
    package = ("-DCMAKE_PREFIX_PATH=" + PREFIX if PREFIX is not None
               else "-Dringprof_DIR=" + ask_python("import ringprof; print(ringprof.get_cmake_dir())"))
    build = str(tmp_path_factory.mktemp("kernels_build"))
    for command in (["cmake", "-S", os.path.join(HERE, "kernels"), "-B", build, package,
                     "-DPython3_EXECUTABLE=" + PYTHON, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                    ["cmake", "--build", build]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, "%s failed:\n%s\n%s" % (" ".join(command), done.stdout, done.stderr)
    return build
