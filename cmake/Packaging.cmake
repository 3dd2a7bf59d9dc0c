# Installs the CMake package (qnnrulesConfig.cmake, version file, exported targets) so that
# find_package(qnnrules) in another project gives qnnrules::engine. tests/package/ checks it.
include(CMakePackageConfigHelpers)

set(QNNRULES_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/qnnrules")
set(QNNRULES_PACKAGE_RULES_DIR "${CMAKE_INSTALL_DATADIR}/qnnrules/rules")

install(EXPORT qnnrulesTargets NAMESPACE qnnrules:: FILE qnnrulesTargets.cmake
        DESTINATION "${QNNRULES_CMAKE_INSTALL_DIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/qnnrulesConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/qnnrulesConfig.cmake"
  INSTALL_DESTINATION "${QNNRULES_CMAKE_INSTALL_DIR}"
  PATH_VARS QNNRULES_PACKAGE_RULES_DIR QNNRULES_READER_MODULE_SUBDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/qnnrulesConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/qnnrulesConfig.cmake" "${PROJECT_BINARY_DIR}/qnnrulesConfigVersion.cmake"
        DESTINATION "${QNNRULES_CMAKE_INSTALL_DIR}")
