# Installs the build into a scratch prefix and runs the Python tests against that installation,
# as a user would after `cmake --install`: PYTHONPATH=<prefix>/<site dir>. PYTEST_ARGS (a list,
# optional) is added to pytest's arguments: scripts/mutate.sh selects its tests with it.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${SITE_DIR} RINGPROF_TEST_PREFIX=${prefix}
          RINGPROF_TEST_WORK_DIR=${WORK_DIR} RINGPROF_TEST_PYTHON=${PYTHON}
          ${PYTHON} -m pytest -q -p no:cacheprovider ${PYTEST_ARGS} ${TESTS_DIR}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the Python tests failed (pytest exit code ${rc})")
endif()
