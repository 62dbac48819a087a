# `cmake --install` puts the library, its headers, the ringprof tool and a CMake package
# (find_package(ringprof) -> ringprof::ringprof) under the prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RINGPROF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ringprof)
install(TARGETS ringprof ringprof_shared EXPORT ringprofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# `cmake --install --strip` (and the .deb, CPACK_STRIP_FILES) strips the tool and libringprof.so;
# CMake leaves static archives alone, so the archive loses its debug info here (17.7 MB -> 3.2 MB),
# keeping the symbols a link needs.
if(CMAKE_STRIP)
  install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
                      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:ringprof>\")
    endif()")
endif()
install(DIRECTORY sdk/include/ringprof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/generated/include/ringprof/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ringprof)
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

# ringprof.pc for builds that are not CMake: `pkg-config --cflags --libs ringprof` links the
# shared library (`--static` adds what the archive needs). It carries what every user needs and
# nothing more: the language standard and where to find libringprof.so at run time (an rpath, or
# none under /usr) are the user's build's choice. Its prefix is found from where the file lies
# (${pcfiledir}), so it stays right for any `cmake --install --prefix`.
file(RELATIVE_PATH RINGPROF_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ringprof.pc.in ${PROJECT_BINARY_DIR}/ringprof.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ringprof.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
