# `cpack -G DEB` in a build folder: a Debian package installing under /usr what `cmake --install`
# installs (the library, its headers, the CMake package, ringprof.pc and the ringprof tool), so
# find_package(ringprof) and pkg-config find it without being told a prefix.
set(CPACK_PACKAGE_NAME ringprof)
set(CPACK_PACKAGE_VENDOR ringprof)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Scope markers for hot loops: ML-Agents timers, cProfile statistics, flame graphs and timelines")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "ringprof maintainers <ringprof@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# A release package carries no debug info: the build folder keeps it for those who debug ringprof.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# The CMake package asks for these (find_dependency) and the static archive links them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt-dev, zlib1g-dev, libsimdjson-dev")
# The C++ parts only: the Python module (component python) is installed by pip or `cmake --install`
# into a Python's own folders, which a system package does not choose.
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};ringprof;Unspecified;/")
include(CPack)
