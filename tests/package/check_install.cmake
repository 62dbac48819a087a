# Installs the build into a scratch prefix, then builds and runs tests/package/consumer against
# it with find_package(ringprof) — as a user of the installed package would — and against the
# build tree (ringprof_DIR), which is a package too.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
if(NOT EXISTS ${prefix}/bin/ringprof)
  message(FATAL_ERROR "the ringprof tool was not installed in bin/")
endif()

# A sanitizer build installs an instrumented library: the consumer is built with the same
# -fsanitize so it links and runs like a user's sanitizer build would.
set(consumer_flags)
if(SANITIZE)
  list(APPEND consumer_flags "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE}")
endif()

# Configures, builds and runs tests/package/PROGRAM (its executable has the folder's name) against
# the LABEL package, which PACKAGE_ARG locates; WHAT names it in the messages. Leaves its build
# folder in consumer_dir.
get_filename_component(package_dir ${CONSUMER_DIR} DIRECTORY)
function(build_and_run program what label package_arg)
  set(dir ${WORK_DIR}/${program}_${label})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${package_dir}/${program} -B ${dir} ${package_arg} ${consumer_flags}
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "configuring ${what} with find_package(ringprof) (${label}) failed")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "building ${what} against the ${label} package failed")
  endif()
  execute_process(COMMAND ${dir}/${program} ${dir}/out RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${what} built against the ${label} package failed")
  endif()
  set(consumer_dir ${dir} PARENT_SCOPE)
endfunction()

foreach(label_and_arg "installed;-DCMAKE_PREFIX_PATH=${prefix}" "build_tree;-Dringprof_DIR=${BUILD_DIR}")
  list(GET label_and_arg 0 label)
  list(GET label_and_arg 1 package_arg)
  build_and_run(consumer "the consumer" ${label} ${package_arg})
  # The shared library: a program and a plugin built with hidden visibility, both linking
  # ringprof::shared, record into one session (the hot path's globals exist once).
  build_and_run(shared_consumer "the shared-library consumer" ${label} ${package_arg})
  # The plugin's markers use the library's state and rings, not copies of their own (a copy
  # would send every marker of the plugin through the slow path, or record into a second engine).
  execute_process(COMMAND nm -D --defined-only ${consumer_dir}/libplugin.so OUTPUT_VARIABLE plugin_symbols
                  RESULT_VARIABLE rc)
  if(rc OR plugin_symbols MATCHES "g_state|t_ring|g_record_signatures")
    message(FATAL_ERROR "libplugin.so defines the markers' globals itself (nm: ${rc}):\n${plugin_symbols}")
  endif()
endforeach()

# ringprof.pc: a build that is not CMake compiles and links with what pkg-config says.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
                          ${PKG_CONFIG} --cflags --libs ringprof
                  OUTPUT_VARIABLE pc_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(rc OR NOT pc_flags MATCHES "-lringprof")
    message(FATAL_ERROR "pkg-config --cflags --libs ringprof failed: '${pc_flags}'")
  endif()
  # Only what every user needs: the language standard and the run-time search path are the
  # user's build's own choice (a forced -std=c++17 breaks a C++20 build's flags).
  if(pc_flags MATCHES "-std=|rpath")
    message(FATAL_ERROR "ringprof.pc imposes build choices on its users: '${pc_flags}'")
  endif()
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  set(sanitize_flags)
  if(SANITIZE)
    set(sanitize_flags -fsanitize=${SANITIZE})
  endif()
  set(dir ${WORK_DIR}/pkg_config_consumer)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND c++ ${sanitize_flags} ${package_dir}/consumer/main.cpp -o ${dir}/consumer ${pc_flags}
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building with pkg-config's flags for ringprof failed")
  endif()
  # No rpath from ringprof.pc: the loader is told where libringprof.so is, as a user would.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${dir}/consumer ${dir}/out
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the consumer built with pkg-config's flags failed")
  endif()
endif()
