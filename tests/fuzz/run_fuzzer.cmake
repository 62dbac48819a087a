# Runs one libFuzzer target briefly from its seeds:
#   cmake -DFUZZER=<program> -DSEEDS=<tests/fuzz/corpus/<target>> -DWORK_DIR=<scratch> -P run_fuzzer.cmake
# New inputs go to a scratch copy so the seeds in the repository stay small; -timeout fails an
# input that hangs. The log is kept and only a summary line is printed (the log's findings on failure).
# 8 s per target keeps the five near 45 s of CPU: the CI run's 30 minutes on 2 cores also hold the
# mutation sample (at 25 s a target, the run came within 41 s of its limit without it).
set(seconds 8)
if(DEFINED ENV{RINGPROF_FUZZ_SECONDS})
  set(seconds $ENV{RINGPROF_FUZZ_SECONDS})
endif()
get_filename_component(target ${FUZZER} NAME)
file(REMOVE_RECURSE ${WORK_DIR})  # and any summary.txt of a previous run
file(MAKE_DIRECTORY ${WORK_DIR}/corpus)
file(GLOB seeds ${SEEDS}/*)
file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)
execute_process(COMMAND ${FUZZER} -max_total_time=${seconds} -timeout=10 -rss_limit_mb=2048 -max_len=65536
                        -print_final_stats=1 corpus
                WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_FILE ${WORK_DIR}/log.txt ERROR_FILE ${WORK_DIR}/log.txt)
file(READ ${WORK_DIR}/log.txt log)
if(NOT rc EQUAL 0)
  string(REGEX MATCHALL "[^\n]*(ERROR|SUMMARY|Test unit written|==[0-9]+==)[^\n]*" findings "${log}")
  list(SUBLIST findings 0 20 findings)
  list(JOIN findings "\n" findings)
  message(FATAL_ERROR "${target}: FAILED (exit ${rc}; log: ${WORK_DIR}/log.txt)\n${findings}")
endif()
string(REGEX MATCHALL "Done [0-9]+ runs" runs "${log}")
string(REGEX MATCHALL "cov: [0-9]+" cov "${log}")
set(last_runs "no runs")
set(last_cov "cov: ?")
if(runs)
  list(GET runs -1 last_runs)
endif()
if(cov)
  list(GET cov -1 last_cov)
endif()
file(GLOB corpus ${WORK_DIR}/corpus/*)
list(LENGTH corpus inputs)
set(summary "${target}: ok, ${last_runs}, ${last_cov}, corpus ${inputs} inputs")
file(WRITE ${WORK_DIR}/summary.txt "${summary}\n")
message("${summary}")
