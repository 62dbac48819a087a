# Every `#include` in the library (sdk/src), the built-in backends, the tool and the Python module,
# held to the layers declared in sdk/layers.cmake, the file the build makes its targets from: a
# file may include a header of its own layer or of the layers its layer names in USES, whether the
# header is in a layer's folder or public (ringprof/..., of the layer that PUBLIC names it in). A
# program (PROGRAM) may include every public header. The public headers (sdk/include/ringprof),
# which users' compilers read, are held to their layers' rule too, and may include only each other,
# the standard library and the few system headers named below.
# Nothing escapes the graph undeclared: every folder of sdk/src is a declared layer, every declared
# layer's folder exists, every public header belongs to exactly one layer, every include names a
# header that is there (a public one, or one of a layer), and a layer's header is included in
# quotes only (in angle brackets it would compile through the layer's include root all the same,
# out of this check's sight).
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
  cmake_parse_arguments(PARSE_ARGV 1 arg "PROGRAM" "DIR" "USES;PUBLIC")
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
  set(LAYER_${name}_PROGRAM ${arg_PROGRAM} PARENT_SCOPE)
  foreach(header IN LISTS arg_PUBLIC)
    if(DEFINED PUBLIC_${header}_LAYER)
      message(FATAL_ERROR "sdk/layers.cmake: ${header} is named by layer ${PUBLIC_${header}_LAYER} and by ${name}")
    endif()
    set(PUBLIC_${header}_LAYER ${name} PARENT_SCOPE)
    set(PUBLIC_${header}_LAYER ${name})
  endforeach()
  set(PUBLIC_NAMED ${PUBLIC_NAMED} ${arg_PUBLIC} PARENT_SCOPE)
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

# A public header of no layer would be included from anywhere unchecked; one named but not there
# (the generated version.hpp aside) would hold nothing.
file(GLOB_RECURSE public_headers ${SOURCE_DIR}/sdk/include/ringprof/*)
foreach(header IN LISTS public_headers)
  file(RELATIVE_PATH included ${SOURCE_DIR}/sdk/include ${header})
  if(NOT DEFINED PUBLIC_${included}_LAYER)
    list(APPEND problems
         "sdk/include/${included}: a public header that no layer names in PUBLIC (sdk/layers.cmake)")
  endif()
endforeach()
foreach(included IN LISTS PUBLIC_NAMED)
  if(NOT EXISTS ${SOURCE_DIR}/sdk/include/${included} AND NOT included STREQUAL "ringprof/version.hpp")
    set(owner ${PUBLIC_${included}_LAYER})
    list(APPEND problems "sdk/layers.cmake: layer ${owner} names ${included}, which is not a public header")
  endif()
endforeach()

# Whether `layer` may include a public header of layer `owner`: its own, one it uses, or any from
# a program, which links the library whole.
function(check_public_use shown layer included)
  set(owner ${PUBLIC_${included}_LAYER})
  if(LAYER_${layer}_PROGRAM OR owner STREQUAL "" OR owner STREQUAL layer OR owner IN_LIST LAYER_${layer}_USES)
    return()
  endif()
  string(CONCAT text "${shown}: includes \"${included}\", a public header of layer ${owner}, "
                     "which layer ${layer} does not use (sdk/layers.cmake)")
  set(problems ${problems} "${text}" PARENT_SCOPE)
endfunction()

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
        else()
          check_public_use("${shown}" ${layer} "${included}")
        endif()
        continue()
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
foreach(header IN LISTS public_headers)
  math(EXPR public_files_checked "${public_files_checked} + 1")
  file(RELATIVE_PATH shown ${SOURCE_DIR} ${header})
  file(RELATIVE_PATH header_name ${SOURCE_DIR}/sdk/include ${header})
  set(header_layer "${PUBLIC_${header_name}_LAYER}")
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
      elseif(header_layer)
        check_public_use("${shown}" ${header_layer} "${included}")
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
