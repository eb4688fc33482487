# The layering rules the include roots cannot enforce alone (docs/architecture.md, "Stages and
# files"), checked over the sources: cmake -DROOT=<source dir> -P layering_check.cmake.
#   * No source includes "src/...": a stage includes "<stage>/x.h" of the stages it lists.
#   * runtime/ includes only "runtime/x.h", <jx/x.h> and system headers: ahead-of-time compiled
#     programs link the runtime alone.
#   * include/jx includes only <jx/x.h> and system headers: the public headers stand alone.
set(violations "")
file(GLOB_RECURSE sources RELATIVE ${ROOT}
     ${ROOT}/src/*.h ${ROOT}/src/*.cpp ${ROOT}/src/*.def
     ${ROOT}/runtime/*.h ${ROOT}/runtime/*.cpp ${ROOT}/runtime/*.def
     ${ROOT}/include/*.h ${ROOT}/tests/*.h ${ROOT}/tests/*.cpp
     ${ROOT}/examples/*.h ${ROOT}/examples/*.cpp ${ROOT}/bench/*.h ${ROOT}/bench/*.cpp)
foreach(source ${sources})
  file(STRINGS ${ROOT}/${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" header "${line}")
    if(header MATCHES "^src/")
      list(APPEND violations "${source}: #include \"${header}\" (a stage's headers are \"<stage>/x.h\")")
    elseif(source MATCHES "^runtime/" AND NOT header MATCHES "^runtime/")
      list(APPEND violations "${source}: #include \"${header}\" (the runtime includes only runtime/)")
    elseif(source MATCHES "^include/")
      list(APPEND violations "${source}: #include \"${header}\" (public headers include <jx/x.h>)")
    endif()
  endforeach()
endforeach()
if(violations)
  list(JOIN violations "\n" text)
  message(FATAL_ERROR "layering violations:\n${text}")
endif()
list(LENGTH sources count)
message(STATUS "layering: ${count} sources checked, no violation")
