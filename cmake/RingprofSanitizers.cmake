# RINGPROF_SANITIZE=thread or address,undefined applies to every target of the build.
if(RINGPROF_SANITIZE)
  add_compile_options(-fsanitize=${RINGPROF_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${RINGPROF_SANITIZE})
  if(RINGPROF_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
