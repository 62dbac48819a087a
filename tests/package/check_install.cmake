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

function(build_and_run_consumer label package_arg)
  set(dir ${WORK_DIR}/consumer_${label})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${dir} ${package_arg} ${consumer_flags}
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "configuring the consumer with find_package(ringprof) (${label}) failed")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} RESULT_VARIABLE rc OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "building the consumer against the ${label} package failed")
  endif()
  execute_process(COMMAND ${dir}/consumer ${dir}/out RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the consumer built against the ${label} package failed")
  endif()
endfunction()

build_and_run_consumer(installed -DCMAKE_PREFIX_PATH=${prefix})
build_and_run_consumer(build_tree -Dringprof_DIR=${BUILD_DIR})
