# RINGPROF_SANITIZE=thread or address,undefined applies to every target of the build.
if(RINGPROF_SANITIZE)
  add_compile_options(-fsanitize=${RINGPROF_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${RINGPROF_SANITIZE})
  if(RINGPROF_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# Fuzzing needs coverage instrumentation in the library too, not only in the fuzz target.
if(RINGPROF_BUILD_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
