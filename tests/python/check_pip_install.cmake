# `pip install` as a Python user does it: on a copy of the sources (no build folder), in fresh
# virtual environments of PYTHON, then the pytest suite against what pip installed (the suite's
# scenarios run the venv's interpreter; nothing comes from the build tree or the sources):
#   venv/       pip install <copy>          the direct path (one full CMake build, timed)
#   dist/       pip wheel <copy>            the same build folder, so it only packs
#   wheel_venv/ pip install dist/*.whl      after the copy and its build are deleted: the wheel
#                                           alone, no build; then pip uninstall removes it all
# Both venvs see the interpreter's site-packages (Debian's: pytest, numpy, mypy); pip reaches no
# index. pytest runs under PYTEST_PYTHON when given (an interpreter without pytest is tested
# from Debian's python3; the scenarios still run the venv's interpreter).
# Inputs: SOURCE_DIR, WORK_DIR, PYTHON, TESTS_DIR, optional PYTEST_PYTHON.
file(REMOVE_RECURSE ${WORK_DIR})
set(copy ${WORK_DIR}/source)
set(venv ${WORK_DIR}/venv)
set(wheel_venv ${WORK_DIR}/wheel_venv)
set(pip_env PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1)

function(check label)  # label, then the command
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "${label} failed (${rc}):\n${out}")
  endif()
endfunction()

# The sources as a checkout has them: everything but build folders, outputs and .git.
file(GLOB entries RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*)
foreach(entry ${entries})
  if(NOT entry MATCHES "^(build.*|\\.git|ringprof_out|ringprof_bench_out)$")
    file(COPY ${SOURCE_DIR}/${entry} DESTINATION ${copy})
  endif()
endforeach()

check("python -m venv" ${PYTHON} -m venv --system-site-packages ${venv})
string(TIMESTAMP started "%s" UTC)
check("pip install <copy of the sources>" ${CMAKE_COMMAND} -E env ${pip_env} ${venv}/bin/python -m pip install ${copy})
string(TIMESTAMP finished "%s" UTC)
math(EXPR seconds "${finished} - ${started}")
message(STATUS "pip install of the sources (CMake build included): ${seconds} s")
check("pip wheel <copy of the sources>"
      ${CMAKE_COMMAND} -E env ${pip_env} ${venv}/bin/python -m pip wheel --no-deps -w ${WORK_DIR}/dist ${copy})
file(REMOVE_RECURSE ${copy})
file(GLOB wheel ${WORK_DIR}/dist/ringprof-*.whl)
list(LENGTH wheel wheels)
if(NOT wheels EQUAL 1)
  message(FATAL_ERROR "pip wheel made ${wheels} ringprof wheels in ${WORK_DIR}/dist: '${wheel}'")
endif()
check("python -m venv (for the wheel)" ${PYTHON} -m venv --system-site-packages ${wheel_venv})
check("pip install <the wheel>" ${CMAKE_COMMAND} -E env ${pip_env} ${wheel_venv}/bin/python -m pip install ${wheel})

foreach(env ${venv} ${wheel_venv})
  if(PYTEST_PYTHON)
    set(pytest_python ${PYTEST_PYTHON})
  else()
    set(pytest_python ${env}/bin/python)
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=RINGPROF_TEST_PREFIX
            RINGPROF_TEST_PYTHON=${env}/bin/python RINGPROF_TEST_WORK_DIR=${WORK_DIR}
            ${pytest_python} -m pytest -q -rs -p no:cacheprovider ${TESTS_DIR}
    WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the Python tests failed against the package pip installed in ${env} (pytest exit code ${rc})")
  endif()
endforeach()

# pip uninstall takes back every file the wheel put in the environment.
check("pip uninstall" ${CMAKE_COMMAND} -E env ${pip_env} ${wheel_venv}/bin/python -m pip uninstall -y ringprof)
file(GLOB_RECURSE left ${wheel_venv}/lib/*/ringprof* ${wheel_venv}/bin/ringprof*)
file(GLOB left_folders LIST_DIRECTORIES true ${wheel_venv}/lib/*/site-packages/ringprof*)
if(left OR left_folders)
  message(FATAL_ERROR "pip uninstall ringprof left files behind: ${left} ${left_folders}")
endif()
