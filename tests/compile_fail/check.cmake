# Checks that a snippet fails to compile with a readable message.
#
#   cmake -DCXX=<compiler> -DINCLUDE_DIR=<troupe/include> -DSOURCE=<file.cpp>
#         -DEXPECTED=<text> -P check.cmake
#
# The snippet is compiled twice: with TROUPE_COMPILE_FAIL_CONTROL defined it
# must compile (so the failure below is not a typo or a missing include), and
# without it compilation must fail with EXPECTED in the diagnostics.

foreach(var IN ITEMS CXX INCLUDE_DIR SOURCE EXPECTED)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()

set(compile "${CXX}" -std=c++20 -fsyntax-only "-I${INCLUDE_DIR}" "${SOURCE}")

execute_process(COMMAND ${compile} -DTROUPE_COMPILE_FAIL_CONTROL
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile-fail check: the control build of ${SOURCE} "
                      "does not compile either:\n${out}")
endif()

execute_process(COMMAND ${compile} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "compile-fail check: ${SOURCE} compiled but must not")
endif()
string(FIND "${out}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "compile-fail check: ${SOURCE} failed to compile, but "
                      "without the message '${EXPECTED}':\n${out}")
endif()
message(STATUS "compile-fail check: ${SOURCE} fails with '${EXPECTED}'")
