# RINGPROF_SANITIZE=thread or address,undefined applies to every target of the build.
if(RINGPROF_SANITIZE)
  add_compile_options(-fsanitize=${RINGPROF_SANITIZE} -fno-omit-frame-pointer -g)
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
