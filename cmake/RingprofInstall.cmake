# `cmake --install` puts the library, its headers, the ringprof tool and a CMake package
# (find_package(ringprof) -> ringprof::ringprof) under the prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RINGPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ringprof)
install(TARGETS ringprof EXPORT ringprofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY sdk/include/ringprof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ringprofTargets NAMESPACE ringprof:: DESTINATION ${RINGPROF_CMAKE_DIR})
configure_package_config_file(cmake/ringprofConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ringprofConfig.cmake INSTALL_DESTINATION ${RINGPROF_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ringprofConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ringprofConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ringprofConfigVersion.cmake
        DESTINATION ${RINGPROF_CMAKE_DIR})

# The build tree is a package too: find_package(ringprof) with ringprof_DIR=<build dir>.
export(EXPORT ringprofTargets NAMESPACE ringprof:: FILE ${CMAKE_CURRENT_BINARY_DIR}/ringprofTargets.cmake)
