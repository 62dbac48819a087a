#!/usr/bin/env bash
# The system package: `cpack -G DEB` in a build folder, installed with dpkg (as root), then used
# the way a user of the system package would — find_package(ringprof) and pkg-config with no
# prefix, the `ringprof` tool on the PATH — and removed again, whatever happens.
#   tests/package/check_deb.sh <build dir>
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work="$build/package_deb"
rm -rf "$work" && mkdir -p "$work"

fail() { echo "check_deb: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' ringprof 2>/dev/null | grep -q "install ok installed"; then
    fail "a ringprof package is installed already; this check installs and removes its own (dpkg -r ringprof)"
fi
[ -e /usr/lib/cmake/ringprof ] && fail "/usr/lib/cmake/ringprof exists outside any package: it would hide the package's"

(cd "$build" && cpack -G DEB -B "$work" >"$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
deb=$(ls "$work"/ringprof_"$version"_*.deb) || fail "no ringprof_${version}_*.deb in $work"

dpkg -i "$deb" >/dev/null
trap 'dpkg -r ringprof >/dev/null || echo "check_deb: dpkg -r ringprof failed" >&2' EXIT

for f in /usr/bin/ringprof /usr/include/ringprof/ringprof.hpp /usr/include/ringprof/version.hpp \
         /usr/lib/libringprof.a /usr/lib/libringprof.so /usr/lib/cmake/ringprof/ringprofConfig.cmake \
         /usr/lib/pkgconfig/ringprof.pc; do
    dpkg -S "$f" >/dev/null 2>&1 || fail "$f is not installed by the package"
done
dpkg -L ringprof | grep -q python && fail "the system package holds the Python module: $(dpkg -L ringprof | grep python)"
[ "$(/usr/bin/ringprof --version)" = "ringprof $version" ] || fail "ringprof --version: $(/usr/bin/ringprof --version)"

# find_package without CMAKE_PREFIX_PATH or ringprof_DIR: found under /usr.
cmake -S "$here/consumer" -B "$work/consumer" >/dev/null
grep -q '^ringprof_DIR:PATH=/usr/lib/cmake/ringprof$' "$work/consumer/CMakeCache.txt" ||
    fail "find_package(ringprof) did not find the system package: $(grep '^ringprof_DIR' "$work/consumer/CMakeCache.txt")"
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer" "$work/consumer/out"

# pkg-config's default search path, and the loader's: no PKG_CONFIG_PATH, no LD_LIBRARY_PATH.
read -r -a pc_flags <<<"$(pkg-config --cflags --libs ringprof)"
c++ "$here/consumer/main.cpp" -o "$work/pkg_config_consumer" "${pc_flags[@]}"
"$work/pkg_config_consumer" "$work/pkg_config_out"

trap - EXIT
dpkg -r ringprof >/dev/null
[ ! -e /usr/lib/cmake/ringprof/ringprofConfig.cmake ] || fail "dpkg -r ringprof left its CMake package behind"
echo "   $(basename "$deb"): installed, found by find_package and pkg-config without a prefix, removed"
