# RINGPROF_SANITIZE=thread or address,undefined applies to every target of the build.
if(RINGPROF_SANITIZE)
  # -g1: line tables, all a sanitizer's report needs; full -g made an ASan+UBSan compile 1.5-1.7x
  # slower (sdk/src/trace/trace_reader.cpp under GCC: 70 s against 40 s).
  add_compile_options(-fsanitize=${RINGPROF_SANITIZE} -fno-omit-frame-pointer -g1)
  # ASan (and UBSan, the fuzzers) at -O1, after the build type's -O2 so that it wins: the level
  # ASan's documentation asks for, and half the compile time (tests/merge/merge_fixtures.cpp: 47 s
  # at -O2, 24 s at -O1 on the 2-core AMD machine), where that build was 20 of CI's 47 minutes;
  # its tests ran as fast (71 s, 67 s). TSan stays at -O2: at -O1 its tests took 264 s against
  # 118 s in a run that shared the machine with another build, not measured apart yet.
  if(RINGPROF_SANITIZE MATCHES "address")
    add_compile_options(-O1)
  endif()
  add_link_options(-fsanitize=${RINGPROF_SANITIZE})
  if(RINGPROF_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  # GCC warns (-Wtsan) at every std::atomic_thread_fence, and the only fences are inside
  # moodycamel::ConcurrentQueue (the queue announcing new rings to the drainer), a Debian header we
  # cannot change. TSan ignores fences, so the warning says TSan could see a false race there, never
  # hide a real one; the queue's hand-off itself is an acquire/release pair TSan does follow.
  if(RINGPROF_SANITIZE MATCHES "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-tsan)
  endif()
endif()

# Fuzzing needs coverage instrumentation in the library too, not only in the fuzz target.
if(RINGPROF_BUILD_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
