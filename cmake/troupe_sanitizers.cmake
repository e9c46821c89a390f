# TROUPE_SANITIZER is a list of GCC/Clang sanitizers, e.g. "address;undefined"
# or "thread". The flags go on every target of this directory tree (library,
# tests, examples, benchmarks), and onto the installed troupe target's link
# interface, because an instrumented static library needs the runtime.

set(troupe_sanitizer_flags "")

if(TROUPE_SANITIZER)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "TROUPE_SANITIZER needs GCC or Clang")
  endif()
  string(REPLACE "," ";" troupe_sanitizer_list "${TROUPE_SANITIZER}")
  foreach(s IN LISTS troupe_sanitizer_list)
    if(NOT s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "TROUPE_SANITIZER: unknown sanitizer '${s}' "
                          "(use address, undefined, thread or leak)")
    endif()
  endforeach()
  if("thread" IN_LIST troupe_sanitizer_list AND "address" IN_LIST troupe_sanitizer_list)
    message(FATAL_ERROR "TROUPE_SANITIZER: thread and address can't be combined")
  endif()
  list(JOIN troupe_sanitizer_list "," troupe_sanitizer_csv)
  list(APPEND troupe_sanitizer_flags "-fsanitize=${troupe_sanitizer_csv}")
  if("undefined" IN_LIST troupe_sanitizer_list)
    # A UB report must fail the test that triggered it.
    list(APPEND troupe_sanitizer_flags "-fno-sanitize-recover=undefined")
  endif()
  add_compile_options(${troupe_sanitizer_flags} -fno-omit-frame-pointer)
  add_link_options(${troupe_sanitizer_flags})
  message(STATUS "troupe: sanitizers ${troupe_sanitizer_csv}")
endif()

function(troupe_sanitize_installed target)
  if(troupe_sanitizer_flags)
    target_link_options(${target} INTERFACE
      "$<INSTALL_INTERFACE:${troupe_sanitizer_flags}>")
  endif()
endfunction()
