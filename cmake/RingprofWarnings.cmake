# Warnings for the project's own targets (not passed on to users of the installed package).
function(ringprof_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
endfunction()
