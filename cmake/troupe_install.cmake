# Installs headers, the static library and a CMake package, so that
#   find_package(troupe 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE troupe::troupe)
# works against the install prefix, and with COMPONENTS test, troupe::test.

include(CMakePackageConfigHelpers)

set(TROUPE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/troupe"
    CACHE STRING "Where troupeConfig.cmake is installed, relative to the prefix")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp")

install(TARGETS troupe
        EXPORT troupeTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")

install(EXPORT troupeTargets
        NAMESPACE troupe::
        DESTINATION "${TROUPE_INSTALL_CMAKEDIR}")
# The `test` component: find_package(troupe COMPONENTS test), troupe::test.
if(TARGET troupe_test)
  install(TARGETS troupe_test
          EXPORT troupeTestTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  install(EXPORT troupeTestTargets
          NAMESPACE troupe::
          DESTINATION "${TROUPE_INSTALL_CMAKEDIR}")
endif()
# The `net` component: find_package(troupe COMPONENTS net), troupe::net.
if(TARGET troupe_net)
  install(TARGETS troupe_net
          EXPORT troupeNetTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  install(EXPORT troupeNetTargets
          NAMESPACE troupe::
          DESTINATION "${TROUPE_INSTALL_CMAKEDIR}")
endif()

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/troupeConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/troupeConfig.cmake"
  INSTALL_DESTINATION "${TROUPE_INSTALL_CMAKEDIR}")

# Before 1.0 a minor release may break the API.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/troupeConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)

install(FILES "${PROJECT_BINARY_DIR}/troupeConfig.cmake"
              "${PROJECT_BINARY_DIR}/troupeConfigVersion.cmake"
        DESTINATION "${TROUPE_INSTALL_CMAKEDIR}")
