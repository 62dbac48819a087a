# ringprof::shared — the same library as one shared object (libringprof.so), for processes where
# several modules record: a Python interpreter with the ringprof module and a user's C++
# extension, a program with plugins. Every module linking it shares one engine (one session,
# drainer and set of rings); two static copies in one process would be two engines.
# It is the static archive taken whole, so there is one list of sources (the layers, sdk/layers.cmake).
# CMake wants a source of the target's own: an empty one, written here.
file(WRITE ${PROJECT_BINARY_DIR}/ringprof_shared_library.cpp
     "// libringprof.so: every object comes from the static archive (cmake/RingprofShared.cmake)\n")
add_library(ringprof_shared SHARED ${PROJECT_BINARY_DIR}/ringprof_shared_library.cpp)
add_library(ringprof::shared ALIAS ringprof_shared)
set_target_properties(ringprof_shared PROPERTIES
  OUTPUT_NAME ringprof
  EXPORT_NAME shared
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
target_link_libraries(ringprof_shared
  PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ringprof>"
  PUBLIC Threads::Threads)
# The static target's usage requirements, minus the archive itself.
target_include_directories(ringprof_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/sdk/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(ringprof_shared PUBLIC cxx_std_17)
