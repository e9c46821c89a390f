# TROUPE_BUILD_FUZZERS builds one libFuzzer program per deserializer
# (tests/fuzz/, run by tools/fuzz.sh). It needs Clang: every target of the
# build gets coverage instrumentation (-fsanitize=fuzzer-no-link), so the
# fuzzers see the branches of the library, not only their own. Combine it with
# TROUPE_SANITIZER="address;undefined" (the `fuzz` preset does), so that a
# memory error or undefined behaviour is a crash the fuzzer reports.

if(TROUPE_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TROUPE_BUILD_FUZZERS needs Clang (libFuzzer); "
                        "use `cmake --preset fuzz` (clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "troupe: fuzzers on")
endif()
