#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root so missing packages can be
# installed with apt-get; nothing is downloaded from anywhere else):
#   scripts/dev.sh install [PREFIX]
#                         install what is missing, build the library and the ringprof tool
#                         optimised and install them, stripped, under PREFIX (default /usr/local)
#   scripts/dev.sh demo   install what is missing, build, run the demo (outputs in ./ringprof_out)
#   scripts/dev.sh test   install what is missing, build and run every test: normal build,
#                         ThreadSanitizer, AddressSanitizer+UBSan, the overhead budget, the fuzzers
# Safe to re-run: builds are incremental, installed packages are skipped.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${RINGPROF_BUILD_ROOT:-"$here/build"}
jobs=${RINGPROF_JOBS:-$(nproc)}

build_packages=(cmake make g++ pkg-config libconcurrentqueue-dev libfmt-dev libgtest-dev
                libbenchmark-dev zlib1g-dev libsimdjson-dev)
test_packages=(clang libclang-rt-14-dev chromium valgrind)
# The Python module and its tests (built for Debian's /usr/bin/python3, which these serve; the
# release preset turns it on; python3-venv for the ctest python_pip, which pip-installs it in fresh
# virtual environments; mypy checks its type stubs).
python_packages=(pybind11-dev python3-dev python3-pytest python3-numpy python3-venv mypy)

install_missing() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "ringprof: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
        exit 1
    fi
    echo "== [${SECONDS} s] installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The configurations are CMakePresets.json's (release, tsan, asan-ubsan, fuzz, demo: what an IDE or
# `cmake --preset tsan` picks too); this script adds the packages, the build folder
# (RINGPROF_BUILD_ROOT) and the job count. The presets use -g1 (line tables: what stack traces and
# callgrind's per-line counts need) instead of -g: tests/merge/merge_fixtures.cpp compiles in 19 s
# instead of 28 s under ASan+UBSan, and sdk/src/trace/trace_reader.cpp in 8 s instead of 11 s at -O2.
configure_and_build() {  # preset, build dir, [cmake -D options...]
    local preset=$1 dir=$2
    shift 2
    cmake -S "$here" --preset "$preset" -B "$dir" "$@" >/dev/null
    local targets=()
    case "$preset" in
        fuzz) targets=(--target fuzz_all) ;;
        demo) targets=(--target ringprof_demo) ;;
    esac
    cmake --build "$dir" -j "$jobs" "${targets[@]}"
}

# One ctest entry per test, spread over the cores; the preset brings the environment (the
# sanitizer builds' RINGPROF_TEST_SCALE=10, RINGPROF_SKIP_BROWSER_TESTS=1, TSAN_OPTIONS).
run_tests() {  # preset, build dir (ctest reads the presets of the current directory)
    (cd "$here" && ctest --preset "$1" --test-dir "$2" -j "$jobs")
}

# Said in the log, not skipped silently.
browser_skip_note="   skipped here: FlameBrowser.* (they test the page's JavaScript inside Chromium, which no \
sanitizer instruments; the C++ that writes the page runs here in Html.*, Svg.*, Folded.*)"

stage() {  # the previous stage's time, then the next stage's title
    local now=$SECONDS
    [ -n "${stage_started:-}" ] && echo "   (stage took $((now - stage_started)) s)"
    stage_started=$now
    echo "== [${now} s] $*"
}

case "${1:-}" in
install)
    install_missing "${build_packages[@]}"
    configure_and_build library "$build_root/library"
    cmake --install "$build_root/library" --strip --prefix "${2:-/usr/local}"
    ;;
demo)
    install_missing "${build_packages[@]}"
    configure_and_build demo "$build_root/demo"
    "$build_root/demo/examples/ringprof_demo"
    ;;
test)
    install_missing "${build_packages[@]}" "${test_packages[@]}" "${python_packages[@]}"
    stage "normal build (with the Python module: its pytest suite is the ctest 'python')"
    configure_and_build release "$build_root/release"
    stage "normal build: tests ($(ctest --test-dir "$build_root/release" -N | sed -n 's/^Total Tests: //p') ctest entries, $jobs at a time)"
    run_tests release "$build_root/release"
    # 1.8x: below what a marker reading steady_clock (2.0x) or publishing with seq_cst stores
    # (2.05x) measured, above what a drainer sharing a loaded core adds to the right marker.
    stage "overhead budget: PROF_SCOPE must cost at most 1.8x a bare pair of rdtsc instructions, drop nothing"
    (cd "$build_root/release" && ./bench/bench_overhead --benchmark_min_time=0.1 \
        --benchmark_repetitions=5 --budget=1.8)
    stage "overhead budget: instructions per recorded PROF_SCOPE (callgrind) under a fixed ceiling"
    "$here/bench/check_instructions_per_scope.sh" "$build_root/release"
    stage "Python cost budget: a scope at most 1/5 of a pure-Python timer, Profile at most cProfile"
    "$here/bench/check_python_cost.sh" "$build_root/release"
    stage "system package: cpack -G DEB, installed with dpkg in a throwaway root (this machine's packages are left as they were), used by find_package and pkg-config without a prefix"
    "$here/tests/package/check_deb.sh" "$build_root/release"
    # After the .deb stage, the last to use build/release: the sample leaves its test programs
    # rebuilt from the original sources, but the library files it touched relink what uses them.
    stage "mutation sample: 6 planted bugs chosen from the commit must each fail a test (all of them: scripts/mutate.sh)"
    RINGPROF_BUILD_ROOT="$build_root" RINGPROF_JOBS="$jobs" "$here/scripts/mutate.sh" --sample 6
    stage "ThreadSanitizer build"
    configure_and_build tsan "$build_root/tsan"
    stage "ThreadSanitizer: tests"
    echo "$browser_skip_note"
    run_tests tsan "$build_root/tsan"
    stage "AddressSanitizer + UndefinedBehaviorSanitizer build (clang: GCC took 2.5-3x as long to compile"
    echo "   this build, 28 s against 7 s for tests/merge/merge_fixtures.cpp; the other builds are GCC's)"
    configure_and_build asan-ubsan "$build_root/asan"
    stage "AddressSanitizer + UndefinedBehaviorSanitizer: tests"
    echo "$browser_skip_note"
    run_tests asan-ubsan "$build_root/asan"
    stage "libFuzzer build: every reader (seeds in tests/fuzz/corpus/<target>/)"
    configure_and_build fuzz "$build_root/fuzz"
    stage "libFuzzer: ${RINGPROF_FUZZ_SECONDS:-8} s on each reader, one ctest entry per target"
    run_tests fuzz "$build_root/fuzz"
    cat "$build_root"/fuzz/tests/fuzz/runs/*/summary.txt | sed 's/^/   /'
    stage "all test suites passed"
    ;;
*)
    echo "usage: scripts/dev.sh install [PREFIX] | demo | test" >&2
    exit 2
    ;;
esac
