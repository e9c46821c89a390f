# Installs a Troupe build tree into a scratch prefix, then configures, builds
# and runs the consumer project beside this script against that prefix.
#
#   cmake -DBUILD_DIR=<troupe build> -DCONSUMER_DIR=<this folder>
#         -DWORK_DIR=<scratch> -DCONFIG=<build type> -DGENERATOR=<generator>
#         [-DMAKE_PROGRAM=<ninja>] [-DCXX_COMPILER=<c++>] -P run.cmake

foreach(var IN ITEMS BUILD_DIR CONSUMER_DIR WORK_DIR CONFIG GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")

function(run step)
  message(STATUS "install test: ${step}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${step} failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")

run("install into ${prefix}"
  "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" --config "${CONFIG}")

set(configure_args
  -S "${CONSUMER_DIR}" -B "${build}" -G "${GENERATOR}"
  "-DCMAKE_BUILD_TYPE=${CONFIG}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  # Only the scratch prefix may satisfy find_package(troupe).
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
run("configure the consumer" "${CMAKE_COMMAND}" ${configure_args})

file(STRINGS "${build}/CMakeCache.txt" troupe_dir REGEX "^troupe_DIR:")
string(REGEX REPLACE "^troupe_DIR:[A-Z]+=" "" troupe_dir "${troupe_dir}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${troupe_dir}" real_troupe_dir)
string(FIND "${real_troupe_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "install test: troupe was found in '${troupe_dir}', "
                      "not under the scratch prefix '${prefix}'")
endif()

run("build the consumer" "${CMAKE_COMMAND}" --build "${build}" --config "${CONFIG}")

foreach(name IN ITEMS troupe_consumer troupe_consumer_test troupe_consumer_net)
  set(exe "${build}/${name}")
  if(NOT EXISTS "${exe}")
    set(exe "${build}/${CONFIG}/${name}")
  endif()
  run("run ${name}" "${exe}")
endforeach()
