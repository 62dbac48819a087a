# Builds and runs tests/package/source_consumer, which takes this checkout in with FetchContent or
# add_subdirectory (HOW), on a machine where the consumer's configure finds neither GoogleTest nor
# Google Benchmark: ringprof, not being the top-level project, must not ask for them.
#   cmake -DSOURCE_DIR=<checkout> -DHOW=fetchcontent|add_subdirectory -DWORK_DIR=<scratch>
#         [-DLAUNCHER=ccache] -P check_source_consumer.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(hide_dev_dependencies -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON)
set(common -DRINGPROF_CHECKOUT=${SOURCE_DIR} -DHOW=${HOW} -DFETCHCONTENT_FULLY_DISCONNECTED=ON
           -DFETCHCONTENT_SOURCE_DIR_RINGPROF=${SOURCE_DIR} ${hide_dev_dependencies})
if(LAUNCHER)
  list(APPEND common -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

# The hiding is real: the same consumer, asking ringprof for its tests and benchmarks, fails to
# configure (a check that could not fail would prove nothing below).
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/source_consumer -B ${WORK_DIR}/asking
                        ${common} -DRINGPROF_BUILD_TESTS=ON -DRINGPROF_BUILD_BENCH=ON
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc OR NOT err MATCHES "GTest|benchmark")
  message(FATAL_ERROR "GoogleTest and Google Benchmark are not hidden from the consumer's configure "
                      "(it succeeded, or failed for another reason: ${rc}):\n${err}")
endif()

set(dir ${WORK_DIR}/build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/source_consumer -B ${dir} ${common}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configuring a consumer that takes ringprof in with ${HOW} failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} --parallel 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "building a consumer that takes ringprof in with ${HOW} failed:\n${out}")
endif()
execute_process(COMMAND ${dir}/consumer ${dir}/out RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer that takes ringprof in with ${HOW} failed (${rc})")
endif()
