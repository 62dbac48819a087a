"""The installed package as its users meet it: the project's version, the `ringprof` command,
docstrings, type information checked by mypy, and the C++ side (headers, CMake package,
libringprof.so) that a pip-installed ringprof carries for extensions linking the same engine."""
import json
import os
import re
import struct
import subprocess

import pytest

from conftest import DEADLINE_SECONDS, HERE, PREFIX, PYTHON, ask_python, path, run_scenario

SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
PIP_INSTALLED = PREFIX is None


def run(command, **kwargs):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE_SECONDS, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail("%s did not finish within %d s" % (" ".join(command), DEADLINE_SECONDS))


def project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        return re.search(r"project\(ringprof VERSION ([0-9.]+)", f.read()).group(1)


def ringprof_command():
    """The `ringprof` tool next to the interpreter (a virtual environment's bin/), or in the
    CMake installation's bin/."""
    folder = os.path.dirname(PYTHON) if PIP_INSTALLED else os.path.join(PREFIX, "bin")
    return os.path.join(folder, "ringprof")


def needs_mypy():
    if run([PYTHON, "-c", "import mypy.stubtest"]).returncode != 0:
        pytest.skip("mypy is not importable by %s (Debian: apt-get install mypy; a venv needs "
                    "--system-site-packages)" % PYTHON)


def test_the_version_is_the_projects_one():
    version = ask_python("import ringprof; print(ringprof.__version__)")
    assert version == project_version()
    if PIP_INSTALLED:
        assert ask_python("import importlib.metadata as m; print(m.version('ringprof'))") == version
    done = run([ringprof_command(), "--version"])
    assert done.returncode == 0 and done.stdout.strip() == "ringprof " + version


def test_help_shows_a_docstring_for_every_public_name():
    docs = json.loads(ask_python("""
import inspect, json, pydoc, ringprof
names = [n for n in ringprof.__all__ if n != "__version__"]
print(json.dumps({"help_scope": pydoc.render_doc(ringprof.scope, renderer=pydoc.plaintext),
                  "docs": {n: inspect.getdoc(getattr(ringprof, n)) or "" for n in names}}))
"""))
    assert "with ringprof.scope(name)" in docs["help_scope"]
    # More than the signature pybind11 writes by itself (`is_enabled() -> bool`).
    bare = {n: d for n, d in docs["docs"].items() if not re.sub(r"^\w+\(.*\) -> [\w.]+\s*", "", d).strip()}
    assert not bare, "no docstring beyond a signature: %s" % bare


def test_the_ringprof_command_reads_what_a_python_program_wrote(tmp_path):
    run_ = run_scenario(tmp_path, """
        import ringprof
        for i in range(3):
            with ringprof.scope("epoch"):
                with ringprof.scope("batch"):
                    pass
    """)
    done = run([ringprof_command(), "merge-timers", run_.path("timers.json")])
    assert done.returncode == 0, done.stderr
    merged = json.loads(done.stdout)
    assert path(merged, "epoch")["count"] == 3
    assert path(merged, "epoch", "batch")["count"] == 3


def test_the_stubs_match_the_runtime_module(tmp_path):
    needs_mypy()
    done = run([PYTHON, "-m", "mypy.stubtest", "ringprof"], cwd=str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_accepts_typed_use_of_the_api_and_reports_each_misuse(tmp_path):
    needs_mypy()
    mypy = [PYTHON, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache")]
    good = run(mypy + [os.path.join(HERE, "typed_usage", "uses_the_api.py")], cwd=str(tmp_path))
    assert good.returncode == 0, good.stdout + good.stderr
    misuses = os.path.join(HERE, "typed_usage", "misuses_the_api.py")
    with open(misuses) as f:
        expected = {n for n, line in enumerate(f, 1) if "# error:" in line}
    bad = run(mypy + [misuses], cwd=str(tmp_path))
    reported = {int(m) for m in re.findall(r"misuses_the_api\.py:(\d+): error", bad.stdout)}
    assert bad.returncode == 1 and reported == expected, bad.stdout + bad.stderr


def test_the_cpp_side_lies_in_a_pip_installed_package():
    found = json.loads(ask_python("""
import json, os, ringprof
answers = {}
for name in ("get_include", "get_cmake_dir", "get_library"):
    try:
        answers[name] = getattr(ringprof, name)()
    except FileNotFoundError as e:
        answers[name] = "FileNotFoundError: " + str(e)
with open("/proc/self/maps") as f:
    answers["loaded"] = sorted({os.path.realpath(l.split()[-1]) for l in f if "libringprof" in l})
print(json.dumps(answers))
"""))
    if not PIP_INSTALLED:
        # A CMake installation keeps them under its prefix: the answer says where to look.
        for name in ("get_include", "get_cmake_dir", "get_library"):
            assert found[name].startswith("FileNotFoundError") and "find_package(ringprof)" in found[name]
        return
    assert os.path.isfile(os.path.join(found["get_include"], "ringprof", "ringprof.hpp"))
    assert os.path.isfile(os.path.join(found["get_cmake_dir"], "ringprofConfig.cmake"))
    # The library an extension is told to link is the one `import ringprof` loaded: one engine.
    assert found["loaded"] == [os.path.realpath(found["get_library"])]


def test_the_engines_thread_locals_fit_the_static_tls_a_loaded_library_may_use(tmp_path):
    # The extension reaches the engine's thread-locals (t_ring: twice per profiled call) through
    # TLS descriptors: a load when glibc placed libringprof's TLS in the static block it keeps for
    # libraries loaded later (rtld.optional_static_tls, 512 bytes), a call into
    # _dl_tlsdesc_dynamic otherwise. 2.5 KB of thread-local state once cost the Profile hook 4%.
    loaded = run_scenario(tmp_path, """
        import json, ringprof
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libringprof.so" in line}
        print(json.dumps(sorted(paths)))
    """).result()
    assert len(loaded) == 1, loaded
    with open(loaded[0], "rb") as f:
        elf = f.read()
    assert elf[:4] == b"\x7fELF" and elf[4] == 2, "a 64-bit ELF file"
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    tls = [struct.unpack_from("<IIQQQQQQ", elf, phoff + i * phentsize) for i in range(phnum)]
    tls = [h for h in tls if h[0] == 7]  # PT_TLS
    assert len(tls) == 1
    memsz = tls[0][6]
    assert memsz <= 512, "libringprof.so has %d bytes of thread-local storage" % memsz
