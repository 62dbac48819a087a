"""The PEP 517 build backend of `pip install .` / `pip wheel .` (pyproject.toml): it drives the
project's CMake to build what the wheel holds — the extension _ringprof, libringprof.so, the
`ringprof` tool — and packs the CMake installation into a wheel.

It uses the standard library only, so it needs no package index and no setuptools or wheel in
the environment (a pyenv or 3.12+ venv has no `wheel`, and no index can supply it here). What
the build needs is the C++ project's own: cmake, g++, pybind11-dev and the -dev packages that
docs/python.md lists, and the headers of the interpreter running pip.

The wheel, as site-packages sees it:
    ringprof/                     the Python package and _ringprof (rpath $ORIGIN/lib)
    ringprof/lib/                 libringprof.so.X.Y, libringprof.a, cmake/ringprof/ (find_package)
    ringprof/include/ringprof/    the public headers
and the `ringprof` tool in the environment's bin/.

Environment: CMAKE_ARGS (extra cmake options, e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache),
CMAKE_BUILD_PARALLEL_LEVEL (jobs; default: the CPUs this process may use).
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from . import wheel_archive

NAME = "ringprof"
SUMMARY = "Low-overhead profiler: Python scopes and C++ PROF_SCOPE markers in one timer tree and timeline"
# The oldest CPython the module compiles for (python/src/python_compat.hpp fills in what 3.8-3.10
# lack); pip refuses older interpreters at once instead of after a failed build.
REQUIRES_PYTHON = ">=3.8"
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What the wheel needs of the CMake project, and where each part goes (relative to the
# installation prefix, which becomes site-packages).
_CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG",  # the optimization level the project measures
    "-DRINGPROF_BUILD_PYTHON=ON",
    "-DRINGPROF_BUILD_TOOLS=ON",
    "-DRINGPROF_BUILD_TESTS=OFF",
    "-DRINGPROF_BUILD_BENCH=OFF",
    "-DRINGPROF_BUILD_EXAMPLES=OFF",
    "-DRINGPROF_BUILD_FUZZ=OFF",
    "-DRINGPROF_PYTHON_INSTALL_DIR=.",
    "-DCMAKE_INSTALL_LIBDIR=ringprof/lib",
    "-DCMAKE_INSTALL_INCLUDEDIR=ringprof/include",
    "-DCMAKE_INSTALL_BINDIR=scripts",
]


def project_version():
    """The one version of the project: CMakeLists.txt's `project(ringprof VERSION x.y.z ...)`."""
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(\s*ringprof\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not found:
        raise RuntimeError("ringprof build: no `project(ringprof VERSION ...)` in %s/CMakeLists.txt" % SOURCE_DIR)
    return found.group(1)


# --- PEP 517 hooks ---

def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return wheel_archive.write_dist_info(metadata_directory, NAME, project_version(), SUMMARY, REQUIRES_PYTHON,
                                         wheel_archive.interpreter_tag())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = project_version()
    build_dir = _build_dir()
    _run(["cmake", "-S", SOURCE_DIR, "-B", build_dir, "-DPython3_EXECUTABLE=" + sys.executable]
         + _CMAKE_OPTIONS + shlex.split(os.environ.get("CMAKE_ARGS", "")))
    _run(["cmake", "--build", build_dir, "-j", os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(_cpus()))])
    with tempfile.TemporaryDirectory(prefix="ringprof_wheel_") as staging:
        site_root = os.path.join(staging, "site")
        _run(["cmake", "--install", build_dir, "--prefix", site_root, "--strip"])
        _one_file_per_library(os.path.join(site_root, "ringprof", "lib"))
        scripts_root = os.path.join(site_root, "scripts")
        shutil.move(scripts_root, os.path.join(staging, "scripts"))
        return wheel_archive.write_wheel(wheel_directory, NAME, version, SUMMARY, REQUIRES_PYTHON, site_root,
                                         os.path.join(staging, "scripts"))


# --- machinery ---

def _build_dir():
    """build/pip/<tag>-<interpreter> in the source tree: `pip install .` then `pip wheel .` (or a
    second install) rebuild only what changed. One folder per base interpreter, since the
    extension is compiled against its headers (venvs of one interpreter share it)."""
    interpreter = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    key = hashlib.sha256((interpreter + sys.version).encode()).hexdigest()[:8]
    return os.path.join(SOURCE_DIR, "build", "pip", "%s-%s" % (wheel_archive.interpreter_tag(), key))


def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _run(command):
    sys.stdout.flush()
    done = subprocess.run(command, cwd=SOURCE_DIR)
    if done.returncode != 0:
        raise RuntimeError("ringprof build: `%s` failed (exit %d)" % (" ".join(command), done.returncode))


def _one_file_per_library(lib_dir):
    """A wheel holds no symbolic links, and copies would triple the library: of CMake's
    libringprof.so -> libringprof.so.X.Y -> libringprof.so.X.Y.Z, the one file kept is named by the
    soname (what the extension's DT_NEEDED asks the loader for), and the package's CMake targets
    are pointed at it. The linker name and ringprof.pc (which links by it) are left out: outside
    CMake, ringprof.get_include() and ringprof.get_library() say what to compile and link with."""
    links = {name: os.readlink(os.path.join(lib_dir, name)) for name in os.listdir(lib_dir)
             if os.path.islink(os.path.join(lib_dir, name))}
    renamed = {}
    for name, target in links.items():
        if target not in links:  # the soname's link, to the real file
            os.replace(os.path.join(lib_dir, target), os.path.join(lib_dir, name))
            renamed[target] = name
    for name in links:
        if os.path.islink(os.path.join(lib_dir, name)):
            os.remove(os.path.join(lib_dir, name))
    shutil.rmtree(os.path.join(lib_dir, "pkgconfig"), ignore_errors=True)
    cmake_dir = os.path.join(lib_dir, "cmake", NAME)
    for file_name in os.listdir(cmake_dir):
        path = os.path.join(cmake_dir, file_name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for old, new in renamed.items():
            text = text.replace("/" + old + '"', "/" + new + '"')
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
