# The consumer test (tests/consumer/CMakeLists.txt): installs the jx build, then configures,
# builds and tests the projects in project/ and runtime_only/ against the installed package in
# fresh build directories. Fails on the first failing step.
#
#   cmake -DJX_BUILD_DIR=<jx build> -DWORK_DIR=<scratch> -DGENERATOR=<cmake generator>
#         -DCXX_COMPILER=<c++> [-DLAUNCHER=<ccache>] [-DBUILD_TYPE=<type>] -P run.cmake
foreach(var JX_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")

function(step)
  string(REPLACE ";" " " text "${ARGN}")
  message(STATUS "consumer: ${text}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer: failed (${status}): ${text}")
  endif()
endfunction()

# The same compiler (and ccache) as the jx build, so that the consumer's objects come from the
# cache when nothing changed.
set(common -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(LAUNCHER)
  list(APPEND common "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
if(BUILD_TYPE)
  list(APPEND common "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()

# Checks that find_package(jx) in the build directory dir found the installed package.
function(check_found_installed dir)
  file(STRINGS "${dir}/CMakeCache.txt" jx_dir REGEX "^jx_DIR:")
  if(NOT jx_dir STREQUAL "jx_DIR:PATH=${prefix}/lib/cmake/jx")
    message(FATAL_ERROR "consumer: ${dir} found jx elsewhere: ${jx_dir}")
  endif()
endfunction()

step(${CMAKE_COMMAND} --install "${JX_BUILD_DIR}" --prefix "${prefix}")

set(project "${WORK_DIR}/project")
step(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/project" -B "${project}" ${common})
check_found_installed("${project}")
step(${CMAKE_COMMAND} --build "${project}" -j2)
step(${CMAKE_CTEST_COMMAND} --test-dir "${project}" --output-on-failure)

set(runtime_only "${WORK_DIR}/runtime_only")
step(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/runtime_only" -B "${runtime_only}" ${common}
     -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
     "-DJX_AOT_DIR=${project}/consumer_kernels.aot")
check_found_installed("${runtime_only}")
step(${CMAKE_COMMAND} --build "${runtime_only}" -j2)
step(${CMAKE_CTEST_COMMAND} --test-dir "${runtime_only}" --output-on-failure)
