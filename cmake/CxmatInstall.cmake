# Installs the headers and an exported package, so that `find_package(cxmat)` then
# `target_link_libraries(app PRIVATE cxmat::cxmat)` works from an installed prefix.
include(CMakePackageConfigHelpers)

install(TARGETS cxmat EXPORT cxmatTargets)
install(DIRECTORY include/cxmat DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cxmatTargets
  NAMESPACE cxmat::
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)

configure_package_config_file(
  cmake/cxmatConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cxmatConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)
# Header-only and free of ABI: any 64-bit or 32-bit consumer may use it.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cxmatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES
  ${PROJECT_BINARY_DIR}/cxmatConfig.cmake
  ${PROJECT_BINARY_DIR}/cxmatConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)
