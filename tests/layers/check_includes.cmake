# Every `#include` in the library (sdk/src), the built-in backends, the tool and the Python module,
# held to the layers declared in sdk/layers.cmake, the file the build makes its targets from: a
# file may include its own layer, the layers its layer names in USES, and the public headers
# (ringprof/...). The public headers (sdk/include/ringprof), which users' compilers read, may
# include only each other, the standard library and the few system headers named below.
# Nothing escapes the graph undeclared: every folder of sdk/src is a declared layer, every declared
# layer's folder exists, every include names a header that is there (a public one, or one of a
# layer), and a layer's header is included in quotes only (in angle brackets it would compile
# through the layer's include root all the same, out of this check's sight).
# Anything else fails the test with one line per include, naming the file, the include and the
# layer that would have to declare it.
#   cmake -DSOURCE_DIR=<checkout> -P check_includes.cmake
cmake_minimum_required(VERSION 3.24)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_includes.cmake: pass -DSOURCE_DIR=<checkout>")
endif()

set(RINGPROF_LAYERS)
set(problems)
function(ringprof_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PROGRAM" "DIR" "USES")
  if(NOT arg_DIR)
    set(arg_DIR sdk/src/${name})
  endif()
  foreach(used IN LISTS arg_USES)
    if(NOT used IN_LIST RINGPROF_LAYERS)
      message(FATAL_ERROR "sdk/layers.cmake: layer ${name} uses ${used}, which is not a layer declared above it")
    endif()
  endforeach()
  set(RINGPROF_LAYERS ${RINGPROF_LAYERS} ${name} PARENT_SCOPE)
  set(LAYER_${name}_DIR ${arg_DIR} PARENT_SCOPE)
  set(LAYER_${name}_USES ${arg_USES} PARENT_SCOPE)
endfunction()
include(${SOURCE_DIR}/sdk/layers.cmake)

# A folder of sdk/src outside the declared graph would escape the check; a declared layer whose
# folder is not there would check nothing.
foreach(layer IN LISTS RINGPROF_LAYERS)
  if(NOT IS_DIRECTORY ${SOURCE_DIR}/${LAYER_${layer}_DIR})
    list(APPEND problems "sdk/layers.cmake: layer ${layer} names ${LAYER_${layer}_DIR}, which is not a folder")
  endif()
endforeach()
file(GLOB src_entries LIST_DIRECTORIES true ${SOURCE_DIR}/sdk/src/*)
foreach(entry IN LISTS src_entries)
  get_filename_component(folder ${entry} NAME)
  if(IS_DIRECTORY ${entry} AND NOT "${LAYER_${folder}_DIR}" STREQUAL "sdk/src/${folder}")
    list(APPEND problems "sdk/src/${folder}: a folder that sdk/layers.cmake does not declare as a layer")
  elseif(NOT IS_DIRECTORY ${entry})
    list(APPEND problems "sdk/src/${folder}: a file outside every layer's folder")
  endif()
endforeach()

# The layer a path lies in, or "" outside every layer.
function(layer_of path out)
  set(found "")
  foreach(layer IN LISTS RINGPROF_LAYERS)
    string(FIND "${path}/" "${SOURCE_DIR}/${LAYER_${layer}_DIR}/" at)
    if(at EQUAL 0)
      set(found ${layer})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# A public header, as `ringprof/...` names it: one under sdk/include, or the generated version.hpp.
function(is_public_header included out)
  set(${out} FALSE PARENT_SCOPE)
  if(EXISTS ${SOURCE_DIR}/sdk/include/${included} OR included STREQUAL "ringprof/version.hpp")
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# The layer whose header `included` (as written in an include of any form) names, or "".
function(layer_named included out)
  set(${out} "" PARENT_SCOPE)
  if(included MATCHES "^([^/]+)/(.+)$" AND CMAKE_MATCH_1 IN_LIST RINGPROF_LAYERS
     AND EXISTS ${SOURCE_DIR}/${LAYER_${CMAKE_MATCH_1}_DIR}/${CMAKE_MATCH_2})
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endif()
endfunction()

set(include_line_regex "^[ \t]*#[ \t]*include[ \t]*[\"<]")
set(files_checked 0)
set(includes_checked 0)
foreach(layer IN LISTS RINGPROF_LAYERS)
  set(dir ${SOURCE_DIR}/${LAYER_${layer}_DIR})
  file(GLOB_RECURSE sources ${dir}/*.cpp ${dir}/*.hpp ${dir}/*.h ${dir}/*.inl)
  foreach(source IN LISTS sources)
    math(EXPR files_checked "${files_checked} + 1")
    file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
    get_filename_component(source_dir ${source} DIRECTORY)
    file(STRINGS ${source} lines REGEX "${include_line_regex}")
    foreach(line IN LISTS lines)
      math(EXPR includes_checked "${includes_checked} + 1")
      if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<([^>]+)>")
        layer_named("${CMAKE_MATCH_1}" named)
        if(named)
          string(CONCAT text "${shown}: includes <${CMAKE_MATCH_1}>, a header of layer ${named}, in angle brackets: "
                             "write it in quotes, so the layers hold it")
          list(APPEND problems "${text}")
        endif()
        continue()  # the standard library, the system, a dependency: outside the layers
      endif()
      if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
        continue()
      endif()
      set(included ${CMAKE_MATCH_1})
      if(included MATCHES "^ringprof/")
        is_public_header("${included}" public)
        if(NOT public)
          list(APPEND problems
               "${shown}: includes \"${included}\", which is not a public header (sdk/include/${included} is not there)")
        endif()
        continue()  # the public headers: every layer's interface to the others
      endif()
      # Found beside the including file (the compiler looks there first), or under a layer's name.
      get_filename_component(beside ${source_dir}/${included} ABSOLUTE)
      set(target_layer "")
      if(EXISTS ${beside})
        layer_of(${beside} target_layer)
      else()
        layer_named("${included}" target_layer)
      endif()
      if(NOT EXISTS ${beside} AND target_layer STREQUAL "")
        list(APPEND problems "${shown}: includes \"${included}\", which is neither a layer's header nor a public one")
        continue()
      endif()
      if(target_layer STREQUAL layer OR target_layer IN_LIST LAYER_${layer}_USES)
        continue()
      endif()
      if(target_layer STREQUAL "")
        list(APPEND problems "${shown}: includes \"${included}\", which lies outside every layer")
      else()
        list(APPEND problems
             "${shown}: includes \"${included}\" of layer ${target_layer}, which layer ${layer} does not use (sdk/layers.cmake)")
      endif()
    endforeach()
  endforeach()
endforeach()

# The public headers, which users' compilers read: each other, the standard library (a name with
# no extension and no folder: <vector>), and the system headers named here, which the inline hot
# path and the signal API need; never a layer's header, nor a dependency the library links
# privately (fmt, simdjson, zlib), which an installed program does not have.
set(system_headers_public_may_use signal.h sys/types.h x86intrin.h)
set(public_files_checked 0)
file(GLOB_RECURSE public_headers ${SOURCE_DIR}/sdk/include/ringprof/*)
foreach(header IN LISTS public_headers)
  math(EXPR public_files_checked "${public_files_checked} + 1")
  file(RELATIVE_PATH shown ${SOURCE_DIR} ${header})
  file(STRINGS ${header} lines REGEX "${include_line_regex}")
  foreach(line IN LISTS lines)
    math(EXPR includes_checked "${includes_checked} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<([^>]+)>")
      set(included ${CMAKE_MATCH_1})
      if(NOT included MATCHES "^[a-z_]+$" AND NOT included IN_LIST system_headers_public_may_use)
        string(CONCAT text "${shown}: a public header includes <${included}>, not a header of the standard library "
                           "nor one of the system's this test allows (system_headers_public_may_use)")
        list(APPEND problems "${text}")
      endif()
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      set(included ${CMAKE_MATCH_1})
      is_public_header("${included}" public)
      if(NOT included MATCHES "^ringprof/" OR NOT public)
        list(APPEND problems
             "${shown}: a public header includes \"${included}\", which is not a public header (ringprof/...)")
      endif()
    endif()
  endforeach()
endforeach()

# A check that read nothing would pass anything.
if(files_checked LESS 50 OR includes_checked LESS 200 OR public_files_checked LESS 20)
  string(CONCAT text "read only ${files_checked} files, ${public_files_checked} public headers and "
                     "${includes_checked} includes: the layers' folders were not found")
  list(APPEND problems "${text}")
endif()
if(problems)
  list(LENGTH problems count)
  list(JOIN problems "\n" text)
  message(FATAL_ERROR "${count} problem(s) with the layers:\n${text}")
endif()
message(STATUS "${includes_checked} includes in ${files_checked} files and ${public_files_checked} public headers "
               "follow the layers")
