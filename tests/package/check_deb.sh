#!/usr/bin/env bash
# The system package: `cpack -G DEB` in a build folder, installed with dpkg, then used the way a
# user of the system package would — find_package(ringprof) and pkg-config with no prefix, the
# `ringprof` tool on the PATH — and removed again.
#   tests/package/check_deb.sh <build dir>
#
# A test command must leave the machine it runs on as it found it: a user who runs a library's
# tests must not get it installed into /usr, nor lose a ringprof package they installed. So dpkg
# runs in a throwaway root: a private mount namespace (unshare) where /usr, /etc, /var/lib/dpkg and
# /var/log are overlays whose writes land in this build folder and vanish with the namespace. The
# host's `dpkg-query -W ringprof` is compared before and after. Where no namespace can be made (not
# root, or a container without mount rights) the check says so and installs nothing.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work="$build/package_deb"

fail() { echo "check_deb: $*" >&2; exit 1; }

host_state() { dpkg-query -W -f='${Status} ${Version}' ringprof 2>/dev/null || echo "not installed"; }

if [ -z "${RINGPROF_DEB_THROWAWAY_ROOT:-}" ]; then
    rm -rf "$work" && mkdir -p "$work"
    if [ "$(id -u)" -ne 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
        echo "   skipped here: installing a .deb needs a throwaway root (a private mount namespace, as root)"
        exit 0
    fi
    before=$(host_state)
    status=0
    RINGPROF_DEB_THROWAWAY_ROOT="$work/root" unshare --mount --propagation private bash "$0" "$build" || status=$?
    after=$(host_state)
    [ "$before" = "$after" ] || fail "the host's ringprof package changed: '$before' before, '$after' after"
    [ -e /usr/lib/cmake/ringprof/ringprofConfig.cmake ] && [ "$before" = "not installed" ] &&
        fail "/usr/lib/cmake/ringprof appeared on the host"
    exit "$status"
fi

# In the namespace: every directory dpkg writes becomes an overlay on a folder of our own.
for dir in /usr /etc /var/lib/dpkg /var/log; do
    layer="$RINGPROF_DEB_THROWAWAY_ROOT$dir"
    mkdir -p "$layer/upper" "$layer/work"
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=$layer/upper,workdir=$layer/work" "$dir" ||
        fail "cannot mount an overlay on $dir for the throwaway root"
done
# A package the user installed stays theirs: inside the throwaway root it makes way for ours.
if dpkg-query -W -f='${Status}' ringprof 2>/dev/null | grep -q "install ok installed"; then
    dpkg -r ringprof >/dev/null
fi

[ -e /usr/lib/cmake/ringprof ] && fail "/usr/lib/cmake/ringprof exists outside any package: it would hide the package's"

(cd "$build" && cpack -G DEB -B "$work" >"$work/cpack.log") || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
deb=$(ls "$work"/ringprof_"$version"_*.deb) || fail "no ringprof_${version}_*.deb in $work"

dpkg -i "$deb" >/dev/null

for f in /usr/bin/ringprof /usr/include/ringprof/ringprof.hpp /usr/include/ringprof/version.hpp \
         /usr/lib/libringprof.a /usr/lib/libringprof.so /usr/lib/cmake/ringprof/ringprofConfig.cmake \
         /usr/lib/pkgconfig/ringprof.pc; do
    dpkg -S "$f" >/dev/null 2>&1 || fail "$f is not installed by the package"
done
for f in /usr/bin/ringprof /usr/lib/libringprof.so /usr/lib/libringprof.a; do
    ! objdump -h "$f" | grep -q '[.]debug_info' || fail "$f carries debug info (a release package is stripped)"
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

dpkg -r ringprof >/dev/null
[ ! -e /usr/lib/cmake/ringprof/ringprofConfig.cmake ] || fail "dpkg -r ringprof left its CMake package behind"
echo "   $(basename "$deb"): installed in a throwaway root, found by find_package and pkg-config without a prefix, removed"
