# ringprof_embed_file(TARGET <target> FILE <file> FUNCTION <namespace::name> HEADER <header>)
#
# Builds the bytes of FILE into TARGET: a source generated in the build tree (never the source
# tree, so a read-only checkout, FetchContent and add_subdirectory all work) defines
#     std::string_view <name>();   // every byte of FILE, exactly
# declared by the hand-written HEADER (included by the generated source). The source is written
# again whenever FILE changes, at build time: an asset is edited as what it is (a .css or .js
# file an editor, linter or browser opens), and the library needs no file at run time.
set(RINGPROF_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake)

function(ringprof_embed_file)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;FILE;FUNCTION;HEADER" "")
  foreach(required TARGET FILE FUNCTION HEADER)
    if(NOT arg_${required})
      message(FATAL_ERROR "ringprof_embed_file: ${required} is missing")
    endif()
  endforeach()
  if(NOT arg_FUNCTION MATCHES "^(.+)::([A-Za-z_][A-Za-z0-9_]*)$")
    message(FATAL_ERROR "ringprof_embed_file: FUNCTION '${arg_FUNCTION}' is not namespace::name")
  endif()
  set(namespace ${CMAKE_MATCH_1})
  set(name ${CMAKE_MATCH_2})
  get_filename_component(file ${arg_FILE} ABSOLUTE)
  file(RELATIVE_PATH shown ${PROJECT_SOURCE_DIR} ${file})
  set(output ${CMAKE_CURRENT_BINARY_DIR}/embedded/${name}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${file} -DSHOWN=${shown} -DOUTPUT=${output}
            -DNAMESPACE=${namespace} -DNAME=${name} -DHEADER=${arg_HEADER} -P ${RINGPROF_EMBED_SCRIPT}
    DEPENDS ${file} ${RINGPROF_EMBED_SCRIPT}
    COMMENT "Embedding ${shown}"
    VERBATIM)
  target_sources(${arg_TARGET} PRIVATE ${output})
endfunction()
