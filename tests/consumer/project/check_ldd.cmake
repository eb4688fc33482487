# cmake -DPROGRAM=<file> [-DABSENT=<regex>] [-DPRESENT=<regex>] -P check_ldd.cmake
# Fails when `ldd PROGRAM` lists a library matching ABSENT, or none matching PRESENT.
execute_process(COMMAND ldd "${PROGRAM}" OUTPUT_VARIABLE libraries RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ldd ${PROGRAM} failed (${status})")
endif()
message(STATUS "ldd ${PROGRAM}:\n${libraries}")
if(DEFINED ABSENT AND libraries MATCHES "${ABSENT}")
  message(FATAL_ERROR "${PROGRAM} links ${CMAKE_MATCH_0}")
endif()
if(DEFINED PRESENT AND NOT libraries MATCHES "${PRESENT}")
  message(FATAL_ERROR "${PROGRAM} does not link ${PRESENT}")
endif()
